// Tasks that outlive a restart (docs/protocol.md "Tasks across a restart"): a real `mcpx daemon` over the
// conformance fixture (task-capable) and a plain fixture; a 2026-07-28 client with the extension and a
// 2025-11-25 session, each naming its identity in _meta["dev.mcpx/session"], make tasks; the daemon is
// SIGKILLed, a torn line is appended to its journal by hand, and a second daemon starts on the same state
// directory and config. The owner reads its ended tasks back by the same ids, in both eras' shapes; a
// task running at the kill reads failed with the restart message; another identity is refused as for an
// unknown id; a 2026-07-28 retry of a call that was asking gets the restart failure. Every frame is
// validated by the harness clients.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { cliJs, repoRoot } from '../harness/gateway';
import { fixtureCommand } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { untilValue } from '../harness/wait';

const EXT = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const cli = cliJs();
const dir = mkdtempSync(join(tmpdir(), 'mcpx-tasks-journal-'));
const env = { ...process.env, XDG_CONFIG_HOME: dir, XDG_STATE_HOME: dir, MCPX_PORT: '' };
const journal = join(dir, 'mcpx', 'tasks.jsonl');
const config = join(dir, 'c.json');
const ALICE = { 'dev.mcpx/session': 'alice-5f0c2a9e7b3d41c8a6e2' };
const BOB = { 'dev.mcpx/session': 'bob-91d3e6c0a4b2478f9e1c' };
const CAROL = { 'dev.mcpx/session': 'carol-0a7d9c3e5b1f4e2d8c6a' };

interface Daemon {
  child: ChildProcess;
  endpoint: string;
  stderr: string[];
}

async function startDaemon(): Promise<Daemon> {
  const child = spawn(
    process.execPath,
    [
      cli,
      'daemon',
      '--port',
      '0',
      '--config',
      config,
      '--passthrough',
      'conf',
      '--set',
      'proto.taskPollInterval=100ms',
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (l) => stderr.push(l));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the daemon exited (${code}): ${stderr.join('\n')}`)));
  });
  const endpoint = /mcpx listening on (\S+)$/.exec(line)?.[1] ?? '';
  assert.ok(endpoint, line);
  return { child, endpoint, stderr };
}

async function stop(d: Daemon | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!d || d.child.exitCode !== null || d.child.signalCode !== null) return;
  const exited = new Promise((r) => d.child.once('exit', r));
  d.child.kill(signal);
  await exited;
}

const text = (r: Json | undefined) => ((r?.content as Json[] | undefined)?.[0]?.text as string | undefined) ?? '';
const terminal = (t: Json) => ['completed', 'failed', 'cancelled'].includes(String(t.status));

const modern = (url: string, caps: Json = { elicitation: {}, ...EXT }) =>
  new HttpClient(url, '2026-07-28', { capabilities: caps });
const getModern = (c: HttpClient, taskId: unknown, meta: Json) =>
  c.request('tasks/get', { taskId }, { meta, headers: { 'Mcp-Name': String(taskId) } });

let first: Daemon | undefined;
let second: Daemon | undefined;
let third: Daemon | undefined;
/** What the first daemon's clients saw, to compare after the restart. */
const before_: {
  done?: Json;
  doneId?: string;
  runningId?: string;
  legacyId?: string;
  legacyText?: string;
  requestState?: string;
  askKey?: string;
} = {};

before(async () => {
  mkdirSync(join(dir, 'mcpx'), { recursive: true });
  writeFileSync(
    config,
    JSON.stringify({
      servers: {
        conf: {
          command: process.execPath,
          args: [join(repoRoot(), 'build', 'test', 'fixtures', 'conformance', 'server.js')],
        },
        up: fixtureCommand(['--rev', '2025-11-25']),
      },
    }),
  );
  first = await startDaemon();
  const url = first.endpoint;

  // A 2026-07-28 task that ends, and one still running at the kill.
  const alice = modern(url);
  const created = (
    await alice.request(
      'tools/call',
      { name: 'slow_compute', arguments: { seconds: 0.3, label: 'kept' } },
      { meta: ALICE },
    )
  ).result!;
  assert.equal(created.resultType, 'task');
  before_.doneId = String(created.taskId);
  before_.done = await untilValue(async () => (await getModern(alice, created.taskId, ALICE)).result!, terminal);
  assert.equal(before_.done.status, 'completed');
  const running = (
    await alice.request(
      'tools/call',
      { name: 'slow_compute', arguments: { seconds: 60, label: 'lost' } },
      { meta: ALICE },
    )
  ).result!;
  assert.equal(running.resultType, 'task');
  before_.runningId = String(running.taskId);
  assert.equal((await getModern(alice, running.taskId, ALICE)).result!.status, 'working');

  // A 2025-11-25 session's task (the task field), collected with tasks/result.
  const carol = new HttpClient(url, '2025-11-25');
  await carol.initialize();
  const legacy = (
    await carol.request(
      'tools/call',
      {
        name: 'mcpx_call',
        arguments: { server: 'conf', tool: 'slow_compute', arguments: { seconds: 0.2, label: 'legacy' } },
        task: { ttl: 60000 },
      },
      { meta: CAROL },
    )
  ).result!;
  before_.legacyId = String((legacy.task as Json).taskId);
  const result = (await carol.request('tasks/result', { taskId: before_.legacyId }, { meta: CAROL })).result!;
  before_.legacyText = text(result);
  assert.ok(before_.legacyText.length > 0);

  // A 2026-07-28 call on the question path (no extension): input_required with a requestState.
  const dave = modern(url, { elicitation: {} });
  const asked = (
    await dave.request(
      'tools/call',
      { name: 'mcpx_call', arguments: { server: 'up', tool: 'elicit', arguments: { text: 'sure?' } } },
      { meta: ALICE },
    )
  ).result!;
  assert.equal(asked.resultType, 'input_required', JSON.stringify(asked));
  before_.requestState = String(asked.requestState);
  before_.askKey = Object.keys(asked.inputRequests as Json)[0];

  // The crash: no goodbye, then a record torn mid-write.
  await stop(first, 'SIGKILL');
  appendFileSync(journal, '{"id":"torn","kind":"task","status":"comp');
  second = await startDaemon();
});

after(async () => {
  await stop(first, 'SIGKILL');
  await stop(second, 'SIGTERM');
  await stop(third, 'SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

describe('tasks across a restart (mcpx daemon, SIGKILL, same state directory)', () => {
  test('the journal is owner-only; the torn last record was skipped with a log line, not a failure to start', () => {
    if (process.platform !== 'win32') assert.equal(statSync(journal).mode & 0o777, 0o600);
    assert.ok(
      second!.stderr.some((l) => /tasks\.jsonl ends in a torn record \(a crash mid-write\); skipped/.test(l)),
      second!.stderr.join('\n'),
    );
    assert.ok(!readFileSync(journal, 'utf8').includes('"torn"'), 'compacted at start: the torn bytes are gone');
  });

  test('2026-07-28: the owner reads its ended task by the same id, result inlined as before', async () => {
    const alice = modern(second!.endpoint);
    const t = (await getModern(alice, before_.doneId, ALICE)).result!;
    assert.equal(t.taskId, before_.doneId);
    assert.equal(t.status, 'completed');
    assert.deepEqual(t.result, before_.done!.result);
    assert.equal(t.createdAt, before_.done!.createdAt);
  });

  test('2026-07-28: a task running at the kill reads failed, saying the gateway restarted (never working)', async () => {
    const alice = modern(second!.endpoint);
    const t = (await getModern(alice, before_.runningId, ALICE)).result!;
    assert.equal(t.status, 'failed');
    assert.match(String(t.statusMessage), /the gateway restarted while this call was running/);
    assert.match(String((t.error as Json).message), /the gateway restarted/);
    // Cancelling it changes nothing: it stays failed.
    await alice.request(
      'tasks/cancel',
      { taskId: before_.runningId },
      { meta: ALICE, headers: { 'Mcp-Name': String(before_.runningId) } },
    );
    assert.equal((await getModern(alice, before_.runningId, ALICE)).result!.status, 'failed');
  });

  test('another identity gets -32602 for either id, the same as for an id that never existed', async () => {
    const bob = modern(second!.endpoint);
    const unknown = await getModern(bob, 'no-such-task', BOB);
    for (const id of [before_.doneId, before_.runningId, before_.legacyId]) {
      const r = await getModern(bob, id, BOB);
      assert.equal(r.error?.code, -32602);
      assert.equal(r.error?.message.replace(String(id), 'X'), unknown.error?.message.replace('no-such-task', 'X'));
    }
    // A request naming no identity is its own: refused too.
    assert.equal((await getModern(bob, before_.doneId, {})).error?.code, -32602);
  });

  test('2025-11-25: a new session naming the same identity gets tasks/get, tasks/result, tasks/list; another session none', async () => {
    const carol = new HttpClient(second!.endpoint, '2025-11-25');
    await carol.initialize();
    const t = (await carol.request('tasks/get', { taskId: before_.legacyId }, { meta: CAROL })).result!;
    assert.equal(t.status, 'completed');
    assert.equal(typeof t.ttl, 'number');
    const r = (await carol.request('tasks/result', { taskId: before_.legacyId }, { meta: CAROL })).result!;
    assert.equal(text(r), before_.legacyText);
    assert.deepEqual((r._meta as Json)['io.modelcontextprotocol/related-task'], { taskId: before_.legacyId });
    const listed = (await carol.request('tasks/list', {}, { meta: CAROL })).result!.tasks as Json[];
    assert.deepEqual(
      listed.map((x) => x.taskId),
      [before_.legacyId],
    );
    const other = new HttpClient(second!.endpoint, '2025-11-25');
    await other.initialize();
    assert.equal((await other.request('tasks/get', { taskId: before_.legacyId })).error?.code, -32602);
    assert.equal((await other.request('tasks/result', { taskId: before_.legacyId })).error?.code, -32602);
    assert.deepEqual((await other.request('tasks/list')).result!.tasks, []);
  });

  test('2026-07-28: the retry of a call that was asking at the kill gets the restart failure, once', async () => {
    const dave = modern(second!.endpoint, { elicitation: {} });
    const params = {
      name: 'mcpx_call',
      arguments: { server: 'up', tool: 'elicit', arguments: { text: 'sure?' } },
      inputResponses: { [before_.askKey!]: { action: 'accept', content: { answer: 'yes' } } },
      requestState: before_.requestState,
    };
    const r = await dave.request('tools/call', params, { meta: ALICE });
    assert.match(
      String(r.error?.message),
      /the gateway restarted while this call was running/,
      JSON.stringify(r.response),
    );
    // Collected: the state is spent.
    const again = await dave.request('tools/call', params, { meta: ALICE });
    assert.match(String(again.error?.message), /gone|already used/);
    // Another identity presenting the state is refused by the state itself.
    const other = await dave.request('tools/call', params, { meta: BOB });
    assert.equal(other.error?.code, -32602);
  });

  test('a graceful stop (SIGTERM) does not cancel a running task: after the next start it reads failed, restarted', async () => {
    const alice = modern(second!.endpoint);
    const running = (
      await alice.request(
        'tools/call',
        { name: 'slow_compute', arguments: { seconds: 60, label: 'stopped' } },
        { meta: ALICE },
      )
    ).result!;
    assert.equal(running.resultType, 'task');
    await stop(second, 'SIGTERM');
    third = await startDaemon();
    const after = modern(third.endpoint);
    const t = (await getModern(after, running.taskId, ALICE)).result!;
    assert.equal(t.status, 'failed');
    assert.match(String(t.statusMessage), /the gateway restarted while this call was running/);
    // What the second start restored is still there after the third.
    assert.equal((await getModern(after, before_.doneId, ALICE)).result!.status, 'completed');
  });
});
