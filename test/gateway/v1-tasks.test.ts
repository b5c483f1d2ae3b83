// /v1/tasks and `mcpx tasks`: a client's tasks, seen and cancelled by the identity that started them
// (docs/security.md "Tasks belong to their owner"). The tasks are real: 2025-11-25 tools/call requests
// with `task`, through the gateway's mcpx_call, to a fixture upstream.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, test } from 'node:test';
import { repoRoot } from '../harness/gateway';
import { type TestGateway, fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { until } from '../harness/wait';

after(() => killAll());

const LEGACY = '2025-11-25';
const SESSION = 'dev.mcpx/session';
const up = () => fixtureCommand(['--rev', LEGACY, '--name', 'up']);
const NONE = '00000000-0000-4000-8000-000000000000';

interface Whose {
  /** Mcpx-Identity. */
  identity?: string;
  /** Mcp-Session-Id. */
  session?: string;
  /** Leave the endpoint secret out. */
  noSecret?: boolean;
}

/** One /v1 request with the endpoint secret (unless told not to) and whose tasks it is about. */
async function v1(
  gw: TestGateway,
  path: string,
  o: Whose & { method?: string; body?: string } = {},
): Promise<{ status: number; body: Json }> {
  const headers: Record<string, string> = {};
  if (!o.noSecret) headers.Authorization = `Bearer ${gw.secret}`;
  if (o.identity !== undefined) headers['Mcpx-Identity'] = o.identity;
  if (o.session !== undefined) headers['Mcp-Session-Id'] = o.session;
  if (o.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(new URL(path, gw.url), { method: o.method ?? 'GET', headers, body: o.body });
  return { status: res.status, body: (await res.json()) as Json };
}

const cancel = (gw: TestGateway, id: string, o: Whose & { body?: string } = {}) =>
  v1(gw, `/v1/tasks/${id}/cancel`, { method: 'POST', ...o });

/** Starts `tool` of the fixture as a 2025-11-25 task through mcpx_call; its task id. */
async function startTask(c: HttpClient, tool: string, args: Json, meta: Json = {}): Promise<string> {
  const r = await c.request(
    'tools/call',
    { name: 'mcpx_call', arguments: { server: 'up', tool, arguments: args }, task: {} },
    { meta },
  );
  assert.ok(r.result, JSON.stringify(r.response));
  const task = r.result.task as Json;
  assert.equal(task.status, 'working');
  return String(task.taskId);
}

/** A call that runs until cancelled (the fixture's `slow`, ten minutes, progress every 100 ms). */
const RUNS = { ms: 600_000, steps: 6000 };

async function legacyClient(gw: TestGateway): Promise<HttpClient> {
  const c = new HttpClient(gw.url, LEGACY);
  assert.equal((await c.initialize()).reply.status, 200);
  return c;
}

const ids = (body: Json) => (body.tasks as Json[]).map((t) => t.id);

describe('/v1/tasks', () => {
  test("a client's task: listed to it by Mcpx-Identity, 404 to another, cancelled once by it (409 after)", async () => {
    const gw = await gatewayFor({ up: up() });
    try {
      const c = await legacyClient(gw);
      const id = await startTask(c, 'slow', RUNS, { [SESSION]: 'alice', progressToken: 'p1' });

      const mine = await v1(gw, '/v1/tasks', { identity: 'alice' });
      assert.equal(mine.status, 200);
      assert.deepEqual(ids(mine.body), [id]);
      const row = (mine.body.tasks as Json[])[0]!;
      assert.equal(row.label, 'tools/call mcpx_call up/slow');
      assert.equal(row.client, 'mcpx-tests');
      assert.equal(row.era, 'legacy');
      assert.equal(row.status, 'working');
      assert.equal(row.statusMessage, null);
      assert.match(String(row.createdAt), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.match(String(row.updatedAt), /^\d{4}-\d\d-\d\dT/);
      assert.ok(!JSON.stringify(mine.body).includes('client:alice'), 'no identity in a row: a name is a credential');
      // Progress the upstream reports shows on the row.
      const progressed = await until(
        async () => {
          const r = await v1(gw, `/v1/tasks/${id}`, { identity: 'alice' });
          return (r.body.task as Json).progress ? (r.body.task as Json) : undefined;
        },
        { what: 'progress', timeout: 5_000 },
      );
      assert.equal((progressed.progress as Json).total, 6000);

      // Bob: not listed, not shown, not cancelled — the same 404 as a task that never existed.
      const bobs = await v1(gw, '/v1/tasks', { identity: 'bob' });
      assert.deepEqual(bobs.body, { tasks: [] });
      const hidden = await v1(gw, `/v1/tasks/${id}`, { identity: 'bob' });
      const unknown = await v1(gw, `/v1/tasks/${NONE}`, { identity: 'bob' });
      assert.equal(hidden.status, 404);
      assert.equal(unknown.status, 404);
      assert.equal(String(hidden.body.error).replace(id, NONE), unknown.body.error, 'nothing says which');
      assert.equal((await cancel(gw, id, { identity: 'bob' })).status, 404);
      assert.equal(((await v1(gw, `/v1/tasks/${id}`, { identity: 'alice' })).body.task as Json).status, 'working');

      // Alice cancels it, with a reason; it stays cancelled, and a second cancel is 409.
      const done = await cancel(gw, id, { identity: 'alice', body: '{"reason":"not needed"}' });
      assert.equal(done.status, 200);
      assert.equal((done.body.task as Json).id, id);
      assert.equal((done.body.task as Json).status, 'cancelled');
      assert.equal((done.body.task as Json).statusMessage, 'not needed');
      const again = await cancel(gw, id, { identity: 'alice' });
      assert.equal(again.status, 409);
      assert.match(String(again.body.error), /already ended \(cancelled\)/);
      // The client sees the same over MCP.
      const got = await c.request('tasks/get', { taskId: id }, { meta: { [SESSION]: 'alice' } });
      assert.equal(got.result?.status, 'cancelled');
    } finally {
      await gw.close();
    }
  });

  test('GET /v1/tasks/{id}: a completed task carries its result, a failed one its error (or its isError result)', async () => {
    const gw = await gatewayFor({ up: up() });
    try {
      const c = await legacyClient(gw);
      const meta = { [SESSION]: 'alice' };
      const ended = (id: string) =>
        until(
          async () => {
            const t = (await v1(gw, `/v1/tasks/${id}`, { identity: 'alice' })).body.task as Json;
            return t.status === 'working' ? undefined : t;
          },
          { what: `task ${id} to end`, timeout: 5_000 },
        );
      const echoed = await ended(await startTask(c, 'echo', { text: 'hi' }, meta));
      assert.equal(echoed.status, 'completed');
      assert.deepEqual((echoed.result as Json).content, [{ type: 'text', text: 'hi' }]);
      assert.equal(echoed.error, undefined);
      const errored = await ended(await startTask(c, 'error', {}, meta));
      assert.equal(errored.status, 'failed');
      assert.match(String((errored.error as Json).message), /bad thing/);
      assert.equal(errored.result, undefined);
      const failed = await ended(await startTask(c, 'fail', {}, meta));
      assert.equal(failed.status, 'failed', '2025-11-25: a tool result with isError fails its task');
      assert.equal((failed.result as Json).isError, true);
      // An ended task cannot be cancelled: 409, and it keeps its status.
      const late = await cancel(gw, String(echoed.id), { identity: 'alice' });
      assert.equal(late.status, 409);
      assert.equal((late.body.task as Json).status, 'completed');
    } finally {
      await gw.close();
    }
  });

  test('whose tasks: none named is 400; a legacy session by Mcp-Session-Id (unknown: 404); a task of a request alone is reached by id only', async () => {
    const gw = await gatewayFor({ up: up() });
    try {
      const c = await legacyClient(gw);
      const sessionTask = await startTask(c, 'slow', RUNS);
      const aliceTask = await startTask(c, 'slow', RUNS, { [SESSION]: 'alice' });

      const none = await v1(gw, '/v1/tasks');
      assert.equal(none.status, 400);
      assert.match(String(none.body.error), /Mcpx-Identity.*Mcp-Session-Id.*tasks\.adminAccess/);
      assert.equal((await v1(gw, `/v1/tasks/${sessionTask}`)).status, 400);
      assert.equal((await cancel(gw, sessionTask)).status, 400);
      assert.equal((await v1(gw, '/v1/tasks', { identity: '' })).status, 400, 'an empty name names nobody');
      const both = await v1(gw, '/v1/tasks', { identity: 'alice', session: c.sessionId! });
      assert.equal(both.status, 400);

      // The session's own tasks (not those it ran as alice).
      const bySession = await v1(gw, '/v1/tasks', { session: c.sessionId! });
      assert.equal(bySession.status, 200);
      assert.deepEqual(ids(bySession.body), [sessionTask]);
      assert.deepEqual(ids((await v1(gw, '/v1/tasks', { identity: 'alice' })).body), [aliceTask]);
      assert.equal((await v1(gw, `/v1/tasks/${aliceTask}`, { session: c.sessionId! })).status, 404);
      const gone = await v1(gw, '/v1/tasks', { session: NONE });
      assert.equal(gone.status, 404);
      assert.match(String(gone.body.error), /Session not found/);

      // A legacy POST outside any session: its task belongs to that request alone, so nobody lists it,
      // and its id (unguessable) is what reaches it, as with tasks/get.
      const once = new HttpClient(gw.url, LEGACY);
      const alone = await startTask(once, 'slow', RUNS);
      assert.ok(!ids((await v1(gw, '/v1/tasks', { identity: 'bob' })).body).includes(alone));
      assert.equal((await v1(gw, `/v1/tasks/${alone}`, { identity: 'bob' })).status, 200);
      assert.equal((await cancel(gw, alone, { identity: 'bob' })).status, 200);

      assert.equal((await cancel(gw, sessionTask, { session: c.sessionId! })).status, 200);
    } finally {
      await gw.close();
    }
  });

  test('tasks.adminAccess: no identity lists every task and may show and cancel any; a named one still sees its own', async () => {
    const gw = await gatewayFor({ up: up() }, { 'tasks.adminAccess': true });
    try {
      const c = await legacyClient(gw);
      const a = await startTask(c, 'slow', RUNS, { [SESSION]: 'alice' });
      const b = await startTask(c, 'slow', RUNS, { [SESSION]: 'bob' });
      const s = await startTask(c, 'slow', RUNS);
      const all = await v1(gw, '/v1/tasks');
      assert.equal(all.status, 200);
      assert.deepEqual(ids(all.body), [a, b, s], 'oldest first');
      assert.deepEqual(ids((await v1(gw, '/v1/tasks', { identity: 'bob' })).body), [b]);
      assert.equal((await v1(gw, `/v1/tasks/${a}`)).status, 200);
      assert.equal((await v1(gw, `/v1/tasks/${a}`, { identity: 'bob' })).status, 404);
      const cancelled = await cancel(gw, b);
      assert.equal(cancelled.status, 200);
      assert.equal((cancelled.body.task as Json).status, 'cancelled');
      assert.equal((await v1(gw, `/v1/tasks/${NONE}`)).status, 404);
    } finally {
      await gw.close();
    }
  });

  test('the endpoint secret: every /v1/tasks route is 401 without it, and never echoes it', async () => {
    const gw = await gatewayFor({ up: up() }, { 'tasks.adminAccess': true });
    try {
      const c = await legacyClient(gw);
      const id = await startTask(c, 'slow', RUNS, { [SESSION]: 'alice' });
      for (const [path, method] of [
        ['/v1/tasks', 'GET'],
        [`/v1/tasks/${id}`, 'GET'],
        [`/v1/tasks/${id}/cancel`, 'POST'],
      ] as const) {
        const r = await v1(gw, path, { method, identity: 'alice', noSecret: true });
        assert.equal(r.status, 401, `${method} ${path}`);
        assert.ok(!JSON.stringify(r.body).includes(gw.secret));
        assert.ok(!JSON.stringify(r.body).includes(id), 'nothing about the task either');
      }
      const wrong = await fetch(new URL('/v1/tasks', gw.url), { headers: { Authorization: 'Bearer nope' } });
      assert.equal(wrong.status, 401);
      const still = (await v1(gw, `/v1/tasks/${id}`, { identity: 'alice' })).body.task as Json;
      assert.equal(still.status, 'working', 'the refused cancel did nothing');
    } finally {
      await gw.close();
    }
  });

  test('methods and bodies: 405 with Allow for a wrong method, 400 for a cancel body that is not {"reason"?: string} or is too large', async () => {
    const gw = await gatewayFor({ up: up() });
    try {
      const c = await legacyClient(gw);
      const id = await startTask(c, 'slow', RUNS, { [SESSION]: 'alice' });
      const who = { identity: 'alice' };
      for (const [path, method, allow] of [
        ['/v1/tasks', 'POST', 'GET'],
        [`/v1/tasks/${id}`, 'DELETE', 'GET'],
        [`/v1/tasks/${id}/cancel`, 'GET', 'POST'],
      ] as const) {
        const res = await fetch(new URL(path, gw.url), {
          method,
          headers: { Authorization: `Bearer ${gw.secret}`, 'Mcpx-Identity': 'alice' },
        });
        assert.equal(res.status, 405, `${method} ${path}`);
        assert.equal(res.headers.get('allow'), allow);
      }
      assert.equal((await v1(gw, `/v1/tasks/${id}/x`, who)).status, 404);
      for (const body of ['nope', '[]', '{"reason":7}', JSON.stringify({ reason: 'x'.repeat(20_000) })]) {
        const r = await cancel(gw, id, { ...who, body });
        assert.equal(r.status, 400, body.slice(0, 20));
      }
      assert.equal(((await v1(gw, `/v1/tasks/${id}`, who)).body.task as Json).status, 'working');
      // A name that is not plain ASCII travels base64 (what `mcpx tasks --identity` sends).
      const name = 'émile';
      const id2 = await startTask(c, 'slow', RUNS, { [SESSION]: name });
      const encoded = `=?base64?${Buffer.from(name).toString('base64')}?=`;
      assert.deepEqual(ids((await v1(gw, '/v1/tasks', { identity: encoded })).body), [id2]);
      assert.equal((await v1(gw, '/v1/tasks', { identity: '=?base64?***?=' })).status, 400);
    } finally {
      await gw.close();
    }
  });
});

describe('mcpx tasks', () => {
  const cli = join(repoRoot(), 'dist', 'cli.js');
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-tasks-cli-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  // An isolated config and state home: the daemon's endpoint secret is written there, and read from
  // there by `mcpx tasks`.
  const env = { ...process.env, XDG_CONFIG_HOME: dir, XDG_STATE_HOME: dir, MCPX_PORT: '' };
  const run = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(process.execPath, [cli, ...args], { env }, (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    });

  test("lists one identity's tasks as a table, every task with --all, and cancels one; refusals exit 2", async () => {
    const config = join(dir, 'mcp.json');
    writeFileSync(config, JSON.stringify({ servers: { up: up() } }));
    const child: ChildProcess = spawn(
      process.execPath,
      [cli, 'daemon', '--port', '0', '--config', config, '--set', 'tasks.adminAccess=true'],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise((r) => child.on('exit', r));
    try {
      const line = await new Promise<string>((resolve) =>
        createInterface({ input: child.stdout! }).once('line', resolve),
      );
      const url = /mcpx listening on (\S+)$/.exec(line)?.[1];
      assert.ok(url, line);
      const bare = url.replace(/\/mcp\/[^/]+$/, '/mcp');
      const c = new HttpClient(url, LEGACY);
      await c.initialize();
      const mine = await startTask(c, 'slow', RUNS, { [SESSION]: 'alice' });
      const theirs = await startTask(c, 'slow', RUNS, { [SESSION]: 'bob' });

      // The secret comes from the state directory, given the bare endpoint.
      const listed = await run(['tasks', '--identity', 'alice', '--endpoint', bare]);
      assert.equal(listed.code, 0, listed.stderr);
      const lines = listed.stdout.trimEnd().split('\n');
      assert.match(lines[0]!, /^ID\s+KIND\s+STATUS\s+ERA\s+AGE\s+CLIENT\s+PROGRESS\s+LABEL\s+MESSAGE$/);
      assert.equal(lines.length, 2);
      assert.match(
        lines[1]!,
        new RegExp(`^${mine}\\s+task\\s+working\\s+legacy\\s+\\d+s\\s+mcpx-tests\\s+.*tools/call mcpx_call`),
      );
      assert.match((await run(['tasks', '--identity', 'carol', '--endpoint', bare])).stdout, /^no tasks$/m);
      const all = await run(['tasks', '--all', '--endpoint', bare]);
      assert.equal(all.code, 0, all.stderr);
      assert.ok(all.stdout.includes(mine) && all.stdout.includes(theirs), all.stdout);

      // Whose tasks must be said, once.
      const unnamed = await run(['tasks', '--endpoint', bare]);
      assert.equal(unnamed.code, 2);
      assert.match(unnamed.stderr, /--identity NAME, --session ID or --all/);
      assert.equal((await run(['tasks', '--all', '--identity', 'alice', '--endpoint', bare])).code, 2);
      assert.match((await run(['daemon', '--all'])).stderr, /--all: only mcpx tasks, connect and disconnect take it/);

      // Cancel: not by bob (404), by alice once, then 409.
      const notBob = await run(['tasks', 'cancel', mine, '--identity', 'bob', '--endpoint', bare]);
      assert.equal(notBob.code, 2);
      assert.match(notBob.stderr, /No task .*not yours/);
      const cancelled = await run(['tasks', 'cancel', mine, '--identity', 'alice', '--endpoint', bare]);
      assert.equal(cancelled.code, 0, cancelled.stderr);
      assert.match(cancelled.stdout, new RegExp(`^cancelled ${mine}  tools/call mcpx_call up/slow$`, 'm'));
      const twice = await run(['tasks', 'cancel', mine, '--identity', 'alice', '--endpoint', bare]);
      assert.equal(twice.code, 2);
      assert.match(twice.stderr, /already ended \(cancelled\)/);
      assert.match((await run(['tasks', '--identity', 'alice', '--endpoint', bare])).stdout, /cancelled\s+legacy/);
      // --all cancels any (tasks.adminAccess is on); by session id too.
      assert.equal((await run(['tasks', 'cancel', theirs, '--all', '--endpoint', bare])).code, 0);
      const s = await startTask(c, 'slow', RUNS);
      const bySession = await run(['tasks', '--session', c.sessionId!, '--endpoint', bare]);
      assert.match(bySession.stdout, new RegExp(`^${s}\\s+task\\s+working`, 'm'));
      assert.equal((await run(['tasks', 'cancel', s, '--session', c.sessionId!, '--endpoint', bare])).code, 0);
      assert.equal((await run(['tasks', 'cancel', '--identity', 'alice', '--endpoint', bare])).code, 2);
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0);
  });
});
