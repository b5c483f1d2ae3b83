// The question tests' kit (questions-answers.test.ts, questions-routing.test.ts): the state directory, the
// questions a fixture asks, and the answers a client gives.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { killHostiles } from '../harness/hostile';
import { killAll } from '../harness/upstreams';
import type { Json } from '../harness/wire';

export const dir = mkdtempSync(join(tmpdir(), 'mcpx-q-'));
after(() => {
  killAll();
  killHostiles();
  rmSync(dir, { recursive: true, force: true });
});

export const ALL = { elicitation: {}, sampling: {}, roots: {} };
export const answers = (req: Json): Json => {
  if (req.method === 'elicitation/create') return { action: 'accept', content: { answer: 'forty-two' } };
  if (req.method === 'sampling/createMessage')
    return { role: 'assistant', content: { type: 'text', text: 'sampled!' }, model: 'test-model' };
  return { roots: [{ uri: 'file:///client/root', name: 'client root' }] };
};
export const textOf = (r: Json) =>
  String(((((r.result as Json)?.content as Json[]) ?? [])[0] as Json)?.text ?? JSON.stringify(r.error));
