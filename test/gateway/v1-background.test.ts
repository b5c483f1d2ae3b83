// 2026-07-28 background calls a client abandoned, on /v1/tasks by their owner (docs/security.md "Tasks
// belong to their owner"): a call that answered input_required and was never retried is listed to the
// identity that made it (and to nobody else: 404, as for a call that never existed), shown with the
// questions it waits on, cancelled there; one whose retry went away before its answer is collected there
// with its result. Real calls: a 2026-07-28 client through mcpx_call and mcpx_exec to a fixture upstream
// whose `elicit` asks.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MODERN } from '../../src/protocol/revisions';
import { cliJs } from '../harness/gateway';
import { type TestGateway, fixtureCommand, gatewayFor, killAll, untilCalled } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { until } from '../harness/wait';

const SESSION = 'dev.mcpx/session';
let gw: TestGateway;
const home = mkdtempSync(join(tmpdir(), 'mcpx-v1-background-'));
const record = join(home, 'up.jsonl');
before(async () => {
  gw = await gatewayFor({ up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up', '--record', record]) });
});
after(async () => {
  await gw?.close();
  killAll();
  rmSync(home, { recursive: true, force: true });
});

/** `mcpx ARGS` (dist/cli.js), its state and config homes empty. */
function mcpx(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, XDG_CONFIG_HOME: home, XDG_STATE_HOME: home, MCPX_PORT: '' };
  return new Promise((resolve) =>
    execFile(process.execPath, [cliJs(), ...args], { env }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

async function v1(path: string, identity?: string, method = 'GET'): Promise<{ status: number; body: Json }> {
  const headers: Record<string, string> = { Authorization: `Bearer ${gw.secret}` };
  if (identity !== undefined) headers['Mcpx-Identity'] = identity;
  const res = await fetch(new URL(path, gw.url), { method, headers });
  return { status: res.status, body: (await res.json()) as Json };
}
const rows = async (identity: string) => (await v1('/v1/tasks', identity)).body.tasks as Json[];

/** A 2026-07-28 client naming `who` as its identity, that can answer elicitation. */
const client = () => new HttpClient(gw.url, MODERN, { capabilities: { elicitation: {} } });

/** The request's call comes back input_required; the id of the call behind it, as alice's list shows it. */
async function leftAsking(c: HttpClient, who: string, name: string, args: Json): Promise<{ id: string; r: Json }> {
  const before = new Set((await rows(who)).map((t) => t.id));
  const r = (await c.request('tools/call', { name, arguments: args }, { meta: { [SESSION]: who } })).result!;
  assert.equal(r.resultType, 'input_required', JSON.stringify(r));
  const fresh = (await rows(who)).filter((t) => !before.has(t.id));
  assert.equal(fresh.length, 1, JSON.stringify(fresh));
  return { id: String(fresh[0]!.id), r };
}

describe('/v1/tasks: abandoned 2026-07-28 background calls', () => {
  test('listed and shown to their owner only; another identity gets 404; the owner cancels one', async () => {
    const c = client();
    const { id } = await leftAsking(c, 'alice', 'mcpx_call', {
      server: 'up',
      tool: 'elicit',
      arguments: { text: 'your name?' },
    });
    const row = (await rows('alice')).find((t) => t.id === id)!;
    assert.equal(row.kind, 'background');
    assert.equal(row.status, 'input_required');
    assert.equal(row.era, 'modern');
    assert.equal(row.label, 'tools/call mcpx_call up/elicit');
    assert.ok(!JSON.stringify(row).includes('alice'), 'never its identity');

    // Another identity: not listed, not shown, not cancelled — 404 as for an id that never existed.
    assert.deepEqual(await rows('bob'), []);
    const shownToBob = await v1(`/v1/tasks/${id}`, 'bob');
    assert.equal(shownToBob.status, 404);
    assert.match(String(shownToBob.body.error), /\(unknown, expired, or not yours\)/);
    assert.equal((await v1(`/v1/tasks/${id}/cancel`, 'bob', 'POST')).status, 404);
    assert.equal((await v1(`/v1/tasks/${id}`)).status, 400, 'whose it is must be said');

    // `mcpx tasks` shows it among the client's tasks, as what it is.
    const listed = await mcpx(['tasks', '--identity', 'alice', '--endpoint', gw.url]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(
      listed.stdout,
      new RegExp(`^${id}\\s+background\\s+input_required\\s+modern\\s+.*tools/call mcpx_call up/elicit`, 'm'),
    );
    assert.match((await mcpx(['tasks', '--identity', 'bob', '--endpoint', gw.url])).stdout, /^no tasks$/m);

    // The owner sees what it waits on.
    const shown = await v1(`/v1/tasks/${id}`, 'alice');
    assert.equal(shown.status, 200);
    const task = shown.body.task as Json;
    const asks = Object.values(task.inputRequests as Json) as Json[];
    assert.equal(asks.length, 1);
    assert.equal(asks[0]!.method, 'elicitation/create');
    assert.equal((asks[0]!.params as Json).message, 'up (via mcpx) asks: your name?');

    // And cancels it: it leaves the list, and a retry is told it is gone.
    const cancelled = await v1(`/v1/tasks/${id}/cancel`, 'alice', 'POST');
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal((cancelled.body.task as Json).status, 'cancelled');
    assert.ok(!(await rows('alice')).some((t) => t.id === id));
    assert.equal((await v1(`/v1/tasks/${id}`, 'alice')).status, 404);
  });

  test('a call whose retry went away before the answer: collected there with its result', async () => {
    const c = client();
    const script = `const a = await mcpx.call('up', 'elicit', {text: 'colour?'});
      await mcpx.call('up', 'slow', {ms: 600, steps: 1});
      return JSON.parse(a.content[0].text);`;
    const { id, r } = await leftAsking(c, 'carol', 'mcpx_exec', { script });
    const [key] = Object.keys(r.inputRequests as Json);
    // The retry carries the answer, then its client goes away while the script still runs.
    const ctl = new AbortController();
    const retry = c
      .request(
        'tools/call',
        {
          name: 'mcpx_exec',
          arguments: { script },
          inputResponses: { [key!]: { action: 'accept', content: { answer: 'teal' } } },
          requestState: r.requestState,
        },
        { meta: { [SESSION]: 'carol' }, signal: ctl.signal },
      )
      .catch((e: Error) => e);
    // The answer reached the script: its next call is at the upstream.
    await untilCalled(record, 'slow');
    ctl.abort();
    assert.ok((await retry) instanceof Error, 'the retry went away before the answer');

    const done = await until(
      async () => {
        const t = (await rows('carol')).find((x) => x.id === id);
        return t?.status === 'completed' ? t : undefined;
      },
      { what: 'the call to finish', timeout: 5_000 },
    );
    assert.equal(done.kind, 'background');
    const shown = (await v1(`/v1/tasks/${id}`, 'carol')).body.task as Json;
    assert.deepEqual((shown.result as Json).structuredContent, {
      result: { action: 'accept', content: { answer: 'teal' } },
      logs: [],
    });
    // Ended: cancelling is refused, as for a task; still nobody else's.
    assert.equal((await v1(`/v1/tasks/${id}/cancel`, 'carol', 'POST')).status, 409);
    assert.equal((await v1(`/v1/tasks/${id}`, 'alice')).status, 404);
  });
});
