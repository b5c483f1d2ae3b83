// The model's stream read into a sampling result (2025-11-25 client/sampling, CreateMessageResult):
// text up to maxTokens as the model itself counts them (stopReason "maxTokens", the stream cancelled
// there), cut at the first stop sequence (stopReason "stopSequence"), tool calls as tool_use blocks
// (stopReason "toolUse"). The API has no output limit of its own, so the limit is kept here.
import type * as vscode from 'vscode';
import type { JsonObject } from '../protocol/jsonrpc';

export interface SampledAnswer {
  text: string;
  toolUses: JsonObject[];
  stopReason: 'endTurn' | 'maxTokens' | 'stopSequence' | 'toolUse';
}

type Counter = (text: string) => Thenable<number> | Promise<number>;

/** The longest prefix of `text` that counts at most `limit` tokens (a binary search on the counter). */
async function prefixWithin(text: string, limit: number, count: Counter): Promise<string> {
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if ((await count(text.slice(0, mid))) <= limit) lo = mid;
    else hi = mid - 1;
  }
  return text.slice(0, lo);
}

export async function readAnswer(
  stream: AsyncIterable<unknown>,
  o: { maxTokens: number; stopSequences: string[]; count: Counter; stop(): void; isToolCall(p: unknown): boolean },
): Promise<SampledAnswer> {
  let text = '';
  const toolUses: JsonObject[] = [];
  for await (const part of stream) {
    if (o.isToolCall(part)) {
      const call = part as vscode.LanguageModelToolCallPart;
      toolUses.push({ type: 'tool_use', id: call.callId, name: call.name, input: call.input as JsonObject });
      continue;
    }
    const value = (part as { value?: unknown }).value;
    if (typeof value !== 'string') continue;
    text += value;
    const at = o.stopSequences.map((s) => text.indexOf(s)).filter((i) => i >= 0);
    if (at.length) {
      o.stop();
      return { text: text.slice(0, Math.min(...at)), toolUses, stopReason: 'stopSequence' };
    }
    if (o.maxTokens && (await o.count(text)) > o.maxTokens) {
      o.stop();
      return { text: await prefixWithin(text, o.maxTokens, o.count), toolUses, stopReason: 'maxTokens' };
    }
  }
  return { text, toolUses, stopReason: toolUses.length ? 'toolUse' : 'endTurn' };
}
