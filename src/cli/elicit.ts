// `mcpx elicit`: the questions upstreams asked that no calling client could take, waiting at a running
// gateway's broker, and `mcpx elicit answer` (docs/questions.md), through its /v1 API.
import { printable } from '../kit/printable';
import { type Args, UsageError } from './args';
import type { Command } from './command';
import { v1 } from './v1';

export const elicit: Command = {
  usage: [
    ['elicit [--endpoint URL]', 'list the questions waiting at a running gateway'],
    ["elicit answer ID 'JSON' [--endpoint URL]", `answer one, e.g. '{"action":"accept","content":{"name":"x"}}'`],
    ['elicit answer ID allow|once|session|always|deny', 'answer an approval (a call a permission rule holds)'],
  ],
  flags: ['endpoint'],
  positional: true,
  run,
};

interface Question {
  id: string;
  server: string;
  method: string;
  params: { message?: string; arguments?: unknown };
  deadline: number;
}

/** The words an approval is answered with (gateway/broker.ts APPROVAL_ANSWERS). */
const APPROVAL_WORDS = ['allow', 'once', 'session', 'always', 'deny'];

async function run(a: Args): Promise<void> {
  const [verb, id, answer, ...extra] = a.positional;
  if (verb !== undefined && verb !== 'list' && verb !== 'answer')
    throw new UsageError(`mcpx elicit: expected list or answer, got ${JSON.stringify(verb)}`);
  if (verb === 'answer' && (!id || !answer)) throw new UsageError("mcpx elicit answer needs an ID and 'JSON'");
  const unexpected = verb === 'answer' ? extra[0] : id;
  if (unexpected !== undefined) throw new UsageError(`mcpx elicit: unexpected argument ${JSON.stringify(unexpected)}`);
  const { at, auth, refusal } = v1(a);
  if (verb !== 'answer') {
    const res = await fetch(at('/v1/questions'), { headers: auth });
    if (!res.ok) throw await refusal(res);
    const { questions } = (await res.json()) as { questions: Question[] };
    if (questions.length === 0) return void process.stdout.write('no questions waiting\n');
    for (const q of questions) {
      const left = Math.max(0, Math.round((q.deadline - Date.now()) / 1000));
      // An approval shows the call's arguments: what the person is asked to allow.
      const args = q.params.arguments === undefined ? '' : `  arguments ${JSON.stringify(q.params.arguments)}`;
      // Each part is the upstream's or the client's text: one printable line.
      const text = `${q.id}  ${q.server}  ${q.method}  ${q.params.message ?? ''}${args}`;
      process.stdout.write(`${printable(text)}  (${left} s left)\n`);
    }
    return;
  }
  const res = await fetch(at(`/v1/questions/${id}`), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...auth },
    body: APPROVAL_WORDS.includes(answer) ? JSON.stringify({ action: answer }) : answer,
  });
  if (!res.ok) throw await refusal(res);
  process.stdout.write(`answered ${id}\n`);
}
