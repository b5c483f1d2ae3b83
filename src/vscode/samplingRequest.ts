// A sampling/createMessage request (2025-11-25 client/sampling) spelled for VS Code's language model
// API, and every place where the API forces mcpx to depart from it — listed for the person in the
// consent step (docs/questions.md "Sampling in the editor"). The stable API has no system role, no
// maxTokens, stop sequences or temperature of its own: the system prompt goes first as a User message,
// the limits ride in modelOptions (a model may ignore them; mcpx applies maxTokens and stopSequences to
// the answer itself, samplingResponse.ts), and tools go through the API's tool calling.
import * as vscode from 'vscode';
import { type JsonObject, isObject } from '../protocol/jsonrpc';

export interface ChatRequest {
  messages: vscode.LanguageModelChatMessage[];
  options: vscode.LanguageModelChatRequestOptions;
  /** What the answer is held to by mcpx itself, whatever the model does with modelOptions. */
  maxTokens: number;
  stopSequences: string[];
  /** Departures from the request the API forces, in the person's words. */
  departures: string[];
}

const blocksOf = (content: unknown): unknown[] => (Array.isArray(content) ? content : [content]);

/** The text of content blocks; other kinds named in brackets (the consent step shows them so). */
export function textOf(content: unknown): string {
  return blocksOf(content)
    .map((b) => {
      if (!isObject(b)) return '';
      if (b.type === 'text') return String(b.text);
      if (b.type === 'tool_use') return `[tool call ${String(b.name)} ${JSON.stringify(b.input ?? {})}]`;
      if (b.type === 'tool_result') return `[tool result: ${textOf(b.content)}]`;
      return `[${String(b.type)} content]`;
    })
    .join('\n');
}

function decode(data: unknown): Uint8Array {
  return Uint8Array.from(Buffer.from(typeof data === 'string' ? data : '', 'base64'));
}

type UserPart = vscode.LanguageModelTextPart | vscode.LanguageModelToolResultPart | vscode.LanguageModelDataPart;
type AssistantPart = vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart | vscode.LanguageModelDataPart;

/** One sampling message as a chat message: text, images (LanguageModelDataPart), tool_use (assistant)
 *  and tool_result (user) blocks as the API's tool parts; audio cannot be sent and is named in text. */
function message(m: JsonObject, departures: Set<string>): vscode.LanguageModelChatMessage {
  const parts: Array<UserPart | AssistantPart> = [];
  for (const b of blocksOf(m.content)) {
    if (!isObject(b)) continue;
    if (b.type === 'text') parts.push(new vscode.LanguageModelTextPart(String(b.text)));
    else if (b.type === 'image' && typeof b.mimeType === 'string')
      parts.push(vscode.LanguageModelDataPart.image(decode(b.data), b.mimeType));
    else if (b.type === 'tool_use' && m.role === 'assistant')
      parts.push(new vscode.LanguageModelToolCallPart(String(b.id), String(b.name), isObject(b.input) ? b.input : {}));
    else if (b.type === 'tool_result' && m.role === 'user')
      parts.push(
        new vscode.LanguageModelToolResultPart(String(b.toolUseId), [
          new vscode.LanguageModelTextPart(`${b.isError === true ? '[error] ' : ''}${textOf(b.content)}`),
        ]),
      );
    else {
      departures.add(`${String(b.type)} content cannot be given to the model: it is replaced by a note in text`);
      parts.push(new vscode.LanguageModelTextPart(`[${String(b.type)} content]`));
    }
  }
  return m.role === 'assistant'
    ? vscode.LanguageModelChatMessage.Assistant(parts as AssistantPart[])
    : vscode.LanguageModelChatMessage.User(parts as UserPart[]);
}

/** The request for the API, and what it could not keep. */
export function chatRequest(params: JsonObject): ChatRequest {
  const departures = new Set<string>();
  const messages: vscode.LanguageModelChatMessage[] = [];
  if (typeof params.systemPrompt === 'string' && params.systemPrompt !== '') {
    messages.push(vscode.LanguageModelChatMessage.User(params.systemPrompt));
    departures.add("the system prompt goes to the model as the first user message (VS Code's API has no system role)");
  }
  for (const m of Array.isArray(params.messages) ? params.messages : [])
    if (isObject(m)) messages.push(message(m, departures));

  const maxTokens = typeof params.maxTokens === 'number' && params.maxTokens > 0 ? Math.floor(params.maxTokens) : 0;
  const stopSequences = Array.isArray(params.stopSequences)
    ? params.stopSequences.filter((s): s is string => typeof s === 'string' && s !== '')
    : [];
  // The MCP names, as modelOptions: the API leaves option names to each model.
  const modelOptions: Record<string, unknown> = {};
  if (maxTokens) modelOptions.maxTokens = maxTokens;
  if (stopSequences.length) modelOptions.stopSequences = stopSequences;
  if (typeof params.temperature === 'number') {
    modelOptions.temperature = params.temperature;
    departures.add(`temperature ${params.temperature} is passed as a model option, which a model may ignore`);
  }
  if (stopSequences.length)
    departures.add('stop sequences are passed as a model option; mcpx also cuts the answer at the first one');
  if (isObject(params.modelPreferences)) {
    const hints = Array.isArray(params.modelPreferences.hints)
      ? params.modelPreferences.hints.filter(isObject).map((h) => String(h.name))
      : [];
    departures.add(
      `model preferences are not applied: you pick the model${hints.length ? ` (the server hints ${hints.join(', ')})` : ''}`,
    );
  }
  if (params.includeContext !== undefined && params.includeContext !== 'none')
    departures.add(`includeContext "${String(params.includeContext)}" is not honoured: no context is added`);

  const options: vscode.LanguageModelChatRequestOptions = {
    justification: 'An MCP server behind mcpx asks to sample a language model.',
    ...(Object.keys(modelOptions).length ? { modelOptions } : {}),
  };
  // 2025-11-25 sampling with tools: offered through the API's tool calling; toolChoice "none" offers none.
  const tools = Array.isArray(params.tools) ? params.tools.filter(isObject) : [];
  const choice = isObject(params.toolChoice) ? params.toolChoice.mode : undefined;
  if (tools.length && choice !== 'none') {
    options.tools = tools.map((t) => ({
      name: String(t.name),
      description: typeof t.description === 'string' ? t.description : '',
      inputSchema: isObject(t.inputSchema) ? t.inputSchema : { type: 'object' },
    }));
    options.toolMode =
      choice === 'required' ? vscode.LanguageModelChatToolMode.Required : vscode.LanguageModelChatToolMode.Auto;
    departures.add("the tools are offered through the model's tool calling: a model without it answers in text");
  }
  return { messages, options, maxTokens, stopSequences, departures: [...departures] };
}
