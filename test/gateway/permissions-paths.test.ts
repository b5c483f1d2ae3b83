// The permission check on every path into a headless daemon (docs/gateway.md "Permissions"): a `deny`
// rule and an `ask` the person answers at the broker (GET and POST /v1/questions, as `mcpx elicit` does),
// over Streamable HTTP in both eras, the stdio shim, mcpx_call, an mcpx_exec script's call, resources/read,
// prompts/get, `mcpx call` and a task — each shown to reach the upstream only when allowed: the `up`
// fixture records every frame it receives. An approval is bound to its call: "once" lets that call
// through and no other, a retry with other arguments asks again; "session" lets the tool through for
// that client; the call's clock (pool.callTimeout, 1 s here) does not run while the person decides.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cliJs } from '../harness/gateway';
import { type Daemon, LEGACY, MODERN, servers, startDaemon } from '../harness/paths';
import { type Json, HttpClient, StdioClient } from '../harness/wire';
import { stays, until } from '../harness/wait';

const PERMISSIONS = {
  rules: [
    { server: 'up', tool: 'add', action: 'deny' },
    { server: 'up', tool: ['echo', 'nested'], action: 'ask' },
    { kind: 'resource', tool: 'fixture://items/*', action: 'deny' },
    { kind: 'resource', action: 'ask' },
    { kind: 'prompt', client: { identity: 'client:denied-*' }, action: 'deny' },
    { kind: 'prompt', action: 'ask' },
  ],
};

let daemon: Daemon;
let record: string;

before(async () => {
  record = join(tmpdir(), `mcpx-perms-${process.pid}.jsonl`);
  daemon = await startDaemon({
    record,
    settings: { 'pool.callTimeout': '1s' },
    config: { permissions: PERMISSIONS },
  });
});
after(async () => {
  await daemon?.stop();
  rmSync(record, { force: true });
});

const secret = () => daemon.endpoint.split('/mcp/')[1]!;
const v1 = (path: string, init: RequestInit = {}) =>
  fetch(new URL(path, daemon.endpoint), {
    ...init,
    headers: { Authorization: `Bearer ${secret()}`, 'Content-Type': 'application/json' },
  });

interface Question {
  id: string;
  method: string;
  params: {
    target: string;
    arguments: Json;
    argsDigest: string;
    client: Json;
    path: string;
    rule: string;
    run?: string;
  };
}

/** The approval waiting for `target` with these arguments (waits until it is asked). */
function approval(target: string, args: Json): Promise<Question> {
  return until(
    async () => {
      const { questions } = (await (await v1('/v1/questions')).json()) as { questions: Question[] };
      return questions.find(
        (x) =>
          x.method === 'mcpx/approval' &&
          x.params.target === target &&
          JSON.stringify(x.params.arguments) === JSON.stringify(args),
      );
    },
    { what: `the approval of ${target}`, every: 25 },
  );
}

async function answer(q: Question, action: string): Promise<void> {
  const res = await v1(`/v1/questions/${q.id}`, { method: 'POST', body: JSON.stringify({ action }) });
  assert.equal(res.status, 200, await res.text());
}

/** What `up` received: the params of each request of `method`. */
function received(method: string): Json[] {
  return readFileSync(record, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { dir: string; frame: Json })
    .filter((l) => l.dir === 'in' && l.frame.method === method)
    .map((l) => l.frame.params as Json);
}
const calledWith = (tool: string, args: Json) =>
  received('tools/call').some((p) => p.name === tool && JSON.stringify(p.arguments) === JSON.stringify(args));

const textOf = (r: Json | undefined): string =>
  ((r?.content as Json[] | undefined) ?? []).map((b) => String(b.text ?? '')).join('');

/** A client of one path, calling tools by name (pass-through) and answering in its revision. */
interface Caller {
  call(name: string, args: Json): Promise<Json>;
  close(): Promise<void>;
}

async function httpCaller(rev: string, session?: string): Promise<Caller> {
  const c = new HttpClient(daemon.endpoint, rev as never);
  if (rev !== MODERN) await c.initialize();
  const meta = rev === MODERN && session ? { 'dev.mcpx/session': session } : {};
  return {
    call: async (name, args) => (await c.request('tools/call', { name, arguments: args }, { meta })).response ?? {},
    close: async () => {
      if (c.sessionId) await fetch(c.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': c.sessionId } });
    },
  };
}

async function shimCaller(rev: string): Promise<Caller> {
  const c = new StdioClient(
    process.execPath,
    [cliJs(), 'serve', '--transport', 'stdio', '--connect', daemon.endpoint],
    rev as never,
    {},
    daemon.env,
  );
  if (rev !== MODERN) await c.initialize();
  return {
    call: (name, args) => c.request('tools/call', { name, arguments: args }),
    close: async () => void (await c.close()),
  };
}

/** `deny` and `ask` on one path: the denied call never reaches `up`, the asked one only once allowed, an
 *  answer for one set of arguments lets no other through, and the clock waits for the person. */
async function denyAndAsk(c: Caller, tag: string, via: (tool: string, args: Json) => [string, Json]): Promise<void> {
  const denied = { a: 1, b: tag.length };
  const r = await c.call(...via('add', denied));
  const result = r.result as Json;
  assert.equal(result.isError, true, JSON.stringify(r));
  assert.match(textOf(result), /denied by permissions\.rules\[0\]/);
  assert.equal(calledWith('add', denied), false, 'a denied call never reaches the upstream');

  const allowed = { text: `yes ${tag}` };
  const pending = c.call(...via('echo', allowed));
  const q = await approval('echo', allowed);
  assert.equal(q.params.rule, 'permissions.rules[1]');
  assert.equal(calledWith('echo', allowed), false, 'not called before the person answers');
  // Longer than pool.callTimeout (1 s): the upstream's clock has not started while the person decides.
  let settled = false;
  pending.then(
    () => (settled = true),
    () => (settled = true),
  );
  await stays(() => !settled, { for: 1500, what: 'the call waiting on the person' });
  await answer(q, 'once');
  const ok = (await pending).result as Json;
  assert.equal(ok.isError, undefined, JSON.stringify(ok));
  assert.equal(textOf(ok), allowed.text);
  assert.ok(calledWith('echo', allowed));

  // "once" was this call's: the same tool with other arguments asks again, and the person says no.
  const other = { text: `other ${tag}` };
  const again = c.call(...via('echo', other));
  const q2 = await approval('echo', other);
  assert.notEqual(q2.params.argsDigest, q.params.argsDigest);
  await answer(q2, 'deny');
  const no = (await again).result as Json;
  assert.equal(no.isError, true);
  assert.match(textOf(no), /permissions\.rules\[1\] asks the person first, and denied by the person/);
  assert.equal(calledWith('echo', other), false);
}

const direct = (tool: string, args: Json): [string, Json] => [tool, args];
const mcpxCall = (tool: string, args: Json): [string, Json] => ['mcpx_call', { server: 'up', tool, arguments: args }];
const script = (tool: string, args: Json): [string, Json] => [
  'mcpx_exec',
  { script: `return await mcpx.call('up', ${JSON.stringify(tool)}, ${JSON.stringify(args)});` },
];

describe('deny and ask on every path', () => {
  for (const rev of [LEGACY[3]!, MODERN])
    test(`pass-through tools/call over Streamable HTTP (${rev})`, { timeout: 60_000 }, async () => {
      const c = await httpCaller(rev, 'http-pt');
      try {
        await denyAndAsk(c, `http ${rev}`, direct);
      } finally {
        await c.close();
      }
    });

  for (const rev of [LEGACY[1]!, MODERN])
    test(`the stdio shim (${rev})`, { timeout: 60_000 }, async () => {
      const c = await shimCaller(rev);
      try {
        await denyAndAsk(c, `shim ${rev}`, direct);
      } finally {
        await c.close();
      }
    });

  test('mcpx_call', { timeout: 60_000 }, async () => {
    const c = await httpCaller(MODERN, 'mcpx-call');
    try {
      await denyAndAsk(c, 'mcpx_call', mcpxCall);
    } finally {
      await c.close();
    }
  });

  test("an mcpx_exec script's call: the approval names the run", { timeout: 60_000 }, async () => {
    const c = await httpCaller(LEGACY[3]!);
    try {
      // The script's result is the upstream's, or the denial, as its return value.
      const denied = { a: 7, b: 8 };
      const r = (await c.call(...script('add', denied))).result as Json;
      assert.match(JSON.stringify(r), /denied by permissions\.rules\[0\]/);
      assert.equal(calledWith('add', denied), false);
      const allowed = { text: 'from a script' };
      const pending = c.call(...script('echo', allowed));
      const q = await approval('echo', allowed);
      assert.equal(q.params.path, 'mcpx_exec');
      assert.match(q.params.run ?? '', /^[0-9a-f-]{36}$/);
      assert.equal(calledWith('echo', allowed), false);
      await answer(q, 'allow');
      const ok = (await pending).result as Json;
      assert.match(JSON.stringify(ok), /from a script/);
      assert.ok(calledWith('echo', allowed));
      // A script's reads pass the same check: mcpx.read of a URI a rule denies never reaches the upstream.
      const reads = received('resources/read').length;
      const read = (await c.call('mcpx_exec', { script: "return await mcpx.read('mcpx://up/fixture://items/2');" }))
        .result as Json;
      assert.match(JSON.stringify(read), /denied by permissions\.rules\[2\]/);
      assert.equal(received('resources/read').length, reads);
    } finally {
      await c.close();
    }
  });

  for (const rev of [LEGACY[3]!, MODERN])
    test(`resources/read and prompts/get: a JSON-RPC error naming the rule, or the person's answer (${rev})`, async () => {
      const c = new HttpClient(daemon.endpoint, rev as never);
      if (rev !== MODERN) await c.initialize();
      const before = received('resources/read').length;
      const denied = await c.request('resources/read', { uri: 'fixture://items/1' });
      assert.equal(denied.error?.code, -32602);
      assert.match(denied.error?.message ?? '', /reading up\/fixture:\/\/items\/1: denied by permissions\.rules\[2\]/);
      assert.equal(received('resources/read').length, before, 'never read upstream');

      const read = c.request('resources/read', { uri: 'fixture://doc' });
      const q = await approval('fixture://doc', {});
      assert.equal(received('resources/read').length, before);
      await answer(q, 'once');
      assert.ok((await read).result?.contents);
      assert.equal(received('resources/read').length, before + 1);

      const prompts = received('prompts/get').length;
      if (rev === MODERN) {
        const no = await c.request(
          'prompts/get',
          { name: 'greet', arguments: { who: 'x' } },
          { meta: { 'dev.mcpx/session': 'denied-1' } },
        );
        assert.equal(no.error?.code, -32602);
        assert.match(no.error?.message ?? '', /denied by permissions\.rules\[4\]/);
      }
      const get = c.request('prompts/get', { name: 'greet', arguments: { who: `ada ${rev}` } });
      const p = await approval('greet', { who: `ada ${rev}` });
      await answer(p, 'deny');
      const refused = await get;
      assert.equal(refused.error?.code, -32602);
      assert.match(
        refused.error?.message ?? '',
        /permissions\.rules\[5\] asks the person first, and denied by the person/,
      );
      assert.equal(received('prompts/get').length, prompts, 'never got upstream');
    });

  test('`mcpx call`: a client over HTTP, refused with the exit status of an isError result', {
    timeout: 60_000,
  }, async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const child = spawn(process.execPath, [cliJs(), ...args, '--connect', daemon.endpoint], {
          env: daemon.env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.on('close', (code) => resolve({ code, stdout }));
      });
    const denied = await run(['call', 'up', 'add', '{"a":40,"b":2}', '--text']);
    assert.equal(denied.code, 1);
    assert.match(denied.stdout, /denied by permissions\.rules\[0\]/);
    assert.equal(calledWith('add', { a: 40, b: 2 }), false);
    const pending = run(['call', 'up', 'echo', '{"text":"from the cli"}', '--text']);
    const q = await approval('echo', { text: 'from the cli' });
    await answer(q, 'once');
    const ok = await pending;
    assert.equal(ok.code, 0);
    assert.match(ok.stdout, /from the cli/);
  });

  test('a task (2025-11-25 `task` field): created at once, asked before the upstream is called', {
    timeout: 60_000,
  }, async () => {
    const c = new HttpClient(daemon.endpoint, '2025-11-25', { capabilities: {} });
    await c.initialize();
    try {
      const args = { text: 'as a task' };
      const created = await c.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'echo', arguments: args },
        task: { ttl: 60_000 },
      });
      const taskId = (created.result?.task as Json | undefined)?.taskId as string;
      assert.ok(taskId, JSON.stringify(created.response));
      const q = await approval('echo', args);
      assert.equal(calledWith('echo', args), false, 'the task waits for the person before the upstream');
      await answer(q, 'once');
      const result = await c.request('tasks/result', { taskId });
      assert.equal(textOf(result.result), 'as a task');
      assert.ok(calledWith('echo', args));
      // Denied by rule: the task's result is the refusal.
      const no = await c.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'add', arguments: { a: 5, b: 5 } },
        task: { ttl: 60_000 },
      });
      const refused = await c.request('tasks/result', { taskId: (no.result?.task as Json | undefined)?.taskId });
      assert.match(textOf(refused.result), /denied by permissions\.rules\[0\]/);
      assert.equal(calledWith('add', { a: 5, b: 5 }), false);
    } finally {
      await fetch(c.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': c.sessionId! } });
    }
  });
});

test('"session" lets the tool through for that client until the gateway stops; another client is asked', {
  timeout: 60_000,
}, async () => {
  const mine = await httpCaller(MODERN, 'session-a');
  const theirs = await httpCaller(MODERN, 'session-b');
  const first = mine.call('nested', { server: { host: 'one' } });
  await answer(await approval('nested', { server: { host: 'one' } }), 'session');
  assert.equal(((await first).result as Json).isError, undefined);
  // No question this time: the answer holds for this tool and this client, whatever the arguments.
  const second = (await mine.call('nested', { server: { host: 'two' } })).result as Json;
  assert.equal(second.isError, undefined);
  assert.ok(calledWith('nested', { server: { host: 'two' } }));
  const other = theirs.call('nested', { server: { host: 'three' } });
  await answer(await approval('nested', { server: { host: 'three' } }), 'deny');
  assert.equal(((await other).result as Json).isError, true);
  assert.equal(calledWith('nested', { server: { host: 'three' } }), false);
});

test('a reload applies new rules to the next call', { timeout: 60_000 }, async () => {
  const c = await httpCaller(MODERN, 'reload');
  const rules = [{ server: 'up', tool: 'add', action: 'allow' }, ...PERMISSIONS.rules];
  writeFileSync(
    daemon.config,
    JSON.stringify({
      servers: servers(record),
      settings: {
        'mcp.passthrough': 'up',
        'limits.instancesPerServer': 24,
        'pool.idleTimeout': '20s',
        'pool.callTimeout': '1s',
      },
      permissions: { rules },
    }),
  );
  assert.equal((await v1('/v1/reload', { method: 'POST' })).status, 200);
  const r = (await c.call('add', { a: 2, b: 2 })).result as Json;
  assert.equal(r.isError, undefined, JSON.stringify(r));
  assert.ok(calledWith('add', { a: 2, b: 2 }));
  // An invalid rule is refused whole, naming its path; the rules in force stay.
  writeFileSync(
    daemon.config,
    JSON.stringify({ servers: servers(record), permissions: { rules: [{ action: 'never' }] } }),
  );
  const refused = await v1('/v1/reload', { method: 'POST' });
  assert.equal(refused.status, 422);
  assert.match(await refused.text(), /permissions\.rules\.0\.action/);
  const still = (await c.call('add', { a: 3, b: 3 })).result as Json;
  assert.equal(still.isError, undefined);
});
