// Sampling answered in the editor is reviewed by the person (2025-11-25 client/sampling "User
// Interaction Model": a human in the loop who can deny); one answered by a calling client is relayed as
// is and never comes here. A consent QuickPick shows the request (which server, system prompt, messages,
// max tokens); the person picks a model from VS Code's language models (mcpx.sampling.models limits
// which); the response is shown for review before it goes back. Declining is one click, at either step,
// and reaches the upstream as an error (-1, as the SDKs report a user rejection).
import * as vscode from 'vscode';
import { globToRegExp } from '../gateway/names';
import { ProtocolError } from '../protocol/errors';
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { choose } from './choose';

const declined = () => new ProtocolError(-1, 'the person declined the sampling request in the editor');

function textOf(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks
    .map((b) => (isObject(b) && b.type === 'text' ? String(b.text) : isObject(b) ? `[${String(b.type)} content]` : ''))
    .join('\n');
}

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
  const request = [
    ...(typeof params.systemPrompt === 'string' ? [{ label: 'system prompt', detail: params.systemPrompt }] : []),
    ...messages.map((m) => ({ label: String(m.role), detail: textOf(m.content) })),
    { label: `at most ${String(params.maxTokens)} tokens` },
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
  signal.addEventListener('abort', () => cts.cancel(), { once: true });
  const chat = [
    ...(typeof params.systemPrompt === 'string' ? [vscode.LanguageModelChatMessage.User(params.systemPrompt)] : []),
    ...messages.map((m) =>
      m.role === 'assistant'
        ? vscode.LanguageModelChatMessage.Assistant(textOf(m.content))
        : vscode.LanguageModelChatMessage.User(textOf(m.content)),
    ),
  ];
  const response = await pick.m.sendRequest(chat, {}, cts.token);
  let text = '';
  for await (const part of response.text) text += part;
  const review = await choose(
    `${pick.m.name} answered; send it back to ${server}?`,
    'Review the answer',
    ['Send', 'Decline'],
    [{ label: 'answer', detail: text }],
    signal,
  );
  if (review !== 'Send') throw declined();
  return { role: 'assistant', content: { type: 'text', text }, model: pick.m.id, stopReason: 'endTurn' };
}
