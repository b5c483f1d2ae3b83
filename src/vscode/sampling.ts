// Sampling answered in the editor is reviewed by the person (2025-11-25 client/sampling "User
// Interaction Model": a human in the loop who can deny); one answered by a calling client is relayed as
// is and never comes here. A consent QuickPick shows the request (which server, system prompt, messages,
// max tokens, tools) and every departure VS Code's language model API forces (samplingRequest.ts); the
// person picks a model from VS Code's language models (mcpx.sampling.models limits which); the answer —
// text held to maxTokens and stopSequences, or tool calls (samplingResponse.ts) — is shown for review
// before it goes back. Declining is one click, at either step, and reaches the upstream as an error (-1,
// as the SDKs report a user rejection).
import * as vscode from 'vscode';
import { globToRegExp } from '../kit/globs';
import { ProtocolError } from '../protocol/errors';
import type { JsonObject } from '../protocol/jsonrpc';
import { choose } from './choose';
import { chatRequest, textOf } from './samplingRequest';
import { readAnswer } from './samplingResponse';

const declined = () => new ProtocolError(-1, 'the person declined the sampling request in the editor');

/** A model id or vendor matches an entry of mcpx.sampling.models (`*` globs); an empty list allows all. */
function modelAllowed(allowed: readonly string[], model: { id: string; vendor: string; family: string }): boolean {
  if (allowed.length === 0) return true;
  const names = [model.id, model.vendor, `${model.vendor}/${model.family}`];
  return allowed.some((p) => {
    const re = globToRegExp(p);
    return names.some((v) => re.test(v));
  });
}

export async function sampleInEditor(
  server: string,
  params: JsonObject,
  signal: AbortSignal,
): Promise<JsonObject | undefined> {
  const messages = Array.isArray(params.messages) ? (params.messages as JsonObject[]) : [];
  const req = chatRequest(params);
  const tools = req.options.tools ?? [];
  const request = [
    ...(typeof params.systemPrompt === 'string' ? [{ label: 'system prompt', detail: params.systemPrompt }] : []),
    ...messages.map((m) => ({ label: String(m.role), detail: textOf(m.content) })),
    { label: `at most ${String(params.maxTokens)} tokens` },
    ...(tools.length
      ? [
          {
            label: `tools: ${tools.map((t) => t.name).join(', ')}`,
            detail: tools.map((t) => t.description).join(' · '),
          },
        ]
      : []),
    ...req.departures.map((d) => ({ label: '$(info) as VS Code allows', detail: d })),
  ];
  const consent = await choose(
    `${server} (via mcpx) asks to sample a language model`,
    'Review the request, then choose a model or decline',
    ['Choose a model…', 'Decline'],
    request,
    signal,
  );
  if (consent === undefined && !signal.aborted) return undefined; // dismissed: it waits in the Questions view
  if (consent !== 'Choose a model…') throw declined();
  const allowed = vscode.workspace.getConfiguration('mcpx').get<string[]>('sampling.models') ?? [];
  const models = (await vscode.lm.selectChatModels()).filter((m) => modelAllowed(allowed, m));
  if (models.length === 0) {
    void vscode.window.showWarningMessage(
      `mcpx: no language model is available${allowed.length ? ` among mcpx.sampling.models (${allowed.join(', ')})` : ''}; the sampling request of ${server} is declined.`,
    );
    throw declined();
  }
  const pick = await vscode.window.showQuickPick(
    models.map((m) => ({ label: m.name, description: `${m.vendor} · ${m.id}`, m })),
    { title: `mcpx: the model that answers ${server}`, ignoreFocusOut: true },
  );
  if (!pick || signal.aborted) throw declined();
  const cts = new vscode.CancellationTokenSource();
  const onAbort = () => cts.cancel();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const read = async (options: vscode.LanguageModelChatRequestOptions) =>
      readAnswer((await pick.m.sendRequest(req.messages, options, cts.token)).stream, {
        maxTokens: req.maxTokens,
        stopSequences: req.stopSequences,
        count: (t) => pick.m.countTokens(t),
        stop: () => cts.cancel(),
        isToolCall: (p) => p instanceof vscode.LanguageModelToolCallPart,
      });
    let toolsRefused = false;
    let answer: Awaited<ReturnType<typeof read>>;
    try {
      answer = await read(req.options);
    } catch (e) {
      // The stable API says nothing of a model's tool calling before a request, and a model may refuse the
      // tools when it sends or as it streams: it is asked again without them (told at consent), unless the
      // request requires a tool.
      const required = req.options.toolMode === vscode.LanguageModelChatToolMode.Required;
      if (!req.options.tools || required || signal.aborted) throw e;
      toolsRefused = true;
      answer = await read({ justification: req.options.justification, modelOptions: req.options.modelOptions });
    }
    const review = await choose(
      `${pick.m.name} answered; send it back to ${server}?`,
      'Review the answer',
      ['Send', 'Decline'],
      [
        ...(answer.text || !answer.toolUses.length ? [{ label: 'answer', detail: answer.text }] : []),
        ...answer.toolUses.map((u) => ({ label: `tool call ${String(u.name)}`, detail: JSON.stringify(u.input) })),
        ...(answer.stopReason === 'maxTokens' ? [{ label: `$(info) cut at ${req.maxTokens} tokens (maxTokens)` }] : []),
        ...(answer.stopReason === 'stopSequence' ? [{ label: '$(info) cut at a stop sequence' }] : []),
        ...(toolsRefused ? [{ label: '$(info) the model took no tools: it answered without them' }] : []),
      ],
      signal,
    );
    if (review !== 'Send') throw declined();
    const text = { type: 'text', text: answer.text };
    // Text alone keeps the single-block shape every revision reads; tool calls need 2025-11-25's array.
    const content = answer.toolUses.length ? [...(answer.text ? [text] : []), ...answer.toolUses] : text;
    return { role: 'assistant', content, model: pick.m.id, stopReason: answer.stopReason };
  } finally {
    signal.removeEventListener('abort', onAbort);
    cts.dispose();
  }
}
