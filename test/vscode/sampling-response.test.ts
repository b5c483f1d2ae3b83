// The model's stream read into a sampling result (src/vscode/samplingResponse.ts; docs/questions.md
// "Sampling in the editor"): maxTokens as the model counts them, stop sequences, tool calls. Plain Node:
// the module takes the stream, the counter and the tool-call test from its caller.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readAnswer } from '../../src/vscode/samplingResponse';

class ToolCall {
  constructor(
    readonly callId: string,
    readonly name: string,
    readonly input: object,
  ) {}
}
const text = (value: string) => ({ value });

async function* stream(parts: unknown[], seen: { n: number }) {
  for (const p of parts) {
    seen.n++;
    yield p;
  }
}

function read(parts: unknown[], o: { maxTokens?: number; stopSequences?: string[] } = {}) {
  const seen = { n: 0 };
  let stopped = 0;
  const answer = readAnswer(stream(parts, seen), {
    maxTokens: o.maxTokens ?? 0,
    stopSequences: o.stopSequences ?? [],
    // One token per character, as the test language model counts.
    count: async (t) => t.length,
    stop: () => void stopped++,
    isToolCall: (p) => p instanceof ToolCall,
  });
  return answer.then((a) => ({ ...a, seen: seen.n, stopped }));
}

test('maxTokens: the text cut at the limit inside a part, the stream left there, stopReason maxTokens', async () => {
  const a = await read([text('sampled: '), text('one '), text('two '), text('three')], { maxTokens: 12 });
  assert.equal(a.text, 'sampled: one');
  assert.equal(a.stopReason, 'maxTokens');
  assert.equal(a.seen, 2, 'no part read after the one that passed the limit');
  assert.equal(a.stopped, 1, 'the request is cancelled');
});

test('an answer that ends within maxTokens is endTurn, whole', async () => {
  const a = await read([text('short')], { maxTokens: 5 });
  assert.deepEqual([a.text, a.stopReason, a.stopped], ['short', 'endTurn', 0]);
});

test('a stop sequence cuts the answer before it, even across parts; stopReason stopSequence', async () => {
  const a = await read([text('alpha ST'), text('OP beta')], { stopSequences: ['STOP', 'never'] });
  assert.deepEqual([a.text, a.stopReason, a.stopped], ['alpha ', 'stopSequence', 1]);
});

test("the model's tool calls are tool_use blocks, stopReason toolUse; text beside them kept", async () => {
  const a = await read([text('Let me look. '), new ToolCall('c1', 'get_weather', { city: 'Paris' })]);
  assert.equal(a.text, 'Let me look. ');
  assert.deepEqual(a.toolUses, [{ type: 'tool_use', id: 'c1', name: 'get_weather', input: { city: 'Paris' } }]);
  assert.equal(a.stopReason, 'toolUse');
});

test('parts that are neither text nor a tool call are passed over', async () => {
  const a = await read([{ data: new Uint8Array(1) }, text('ok')]);
  assert.deepEqual([a.text, a.stopReason], ['ok', 'endTurn']);
});
