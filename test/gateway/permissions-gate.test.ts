// The gate in a gateway of this process (docs/gateway.md "Permissions"), over real HTTP and a real fixture
// upstream: the ActivityRecord of each call with every field the activity log needs (the client, its
// transport — the stdio shim's header read past the endpoint secret —, the path, the digest, the
// decision, the outcome); the host's Approver set on the facade, and the broker again without one; the
// palette's calls (the facade's callTool) through the same check; "always" kept in the GrantStore and
// revoked; no answer within permissions.askTimeout a denial that says so.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Listening, listen } from '../../src/app/app';
import { parseConfig } from '../../src/config/file';
import { Settings } from '../../src/config/settings';
import type { ActivityRecord } from '../../src/gateway/activity/record';
import { Gateway } from '../../src/gateway/gateway';
import type { ApprovalAnswer, ApprovalRequest, Approver } from '../../src/gateway/permissions/approval';
import { MemoryGrantStore } from '../../src/gateway/permissions/grants';
import { canonicalDigest } from '../../src/kit/canonical';
import { MODERN } from '../../src/protocol/revisions';
import { fixtureCommand } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { until } from '../harness/wait';

const records: ActivityRecord[] = [];
const asked: ApprovalRequest[] = [];
/** What the host's Approver answers next; `hang` never answers (until the signal aborts). */
let next: ApprovalAnswer | 'hang' = 'once';

/** The host's Approver: records what it is asked, answers `next`. */
const host: Approver = {
  ask: (r, signal) => {
    asked.push(r);
    if (next !== 'hang') return Promise.resolve(next);
    return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
  },
};

let g: Gateway;
let l: Listening;

before(async () => {
  const config = parseConfig(
    {
      servers: { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up', '--tool-name', 'greet']) },
      permissions: {
        askTimeout: 300,
        rules: [
          { tool: 'add', action: 'deny' },
          { tool: ['echo', 'nested'], action: 'ask' },
          // The prompt greet and the tool greet (an echo tool of that name): one rule, two kinds.
          { tool: 'greet', action: 'ask' },
        ],
      },
    },
    't',
    { env: process.env },
  );
  const settings = new Settings([{ source: 'flag', values: { 'mcp.passthrough': ['up'] } }]);
  g = new Gateway(config, settings, {
    permissions: { grants: new MemoryGrantStore(), approver: host, activity: { append: (r) => records.push(r) } },
  });
  l = await listen({ provider: g, settings, port: 0, address: '127.0.0.1' });
});
after(async () => {
  await l?.close();
  await g?.close();
});

const textOf = (r: Json | undefined): string =>
  ((r?.content as Json[] | undefined) ?? []).map((b) => String(b.text ?? '')).join('');

async function call(name: string, args: Json, headers: Record<string, string> = {}, rev = '2025-11-25') {
  const c = new HttpClient(l.endpoint, rev as never, { headers });
  if (rev !== MODERN) await c.initialize();
  return (await c.request('tools/call', { name, arguments: args })).result as Json;
}

describe('the record of each call', () => {
  test('an asked call the person allowed: every field', async () => {
    next = 'once';
    records.length = 0;
    const args = { text: 'recorded', z: undefined };
    const r = await call('echo', { text: 'recorded' });
    assert.equal(textOf(r), 'recorded');
    assert.equal(records.length, 1);
    const rec = records[0]!;
    assert.equal(rec.kind, 'tool');
    assert.deepEqual(rec.client, {
      name: 'mcpx-tests',
      version: '1.0.0',
      identity: rec.client.identity,
      revision: '2025-11-25',
      transport: 'http',
    });
    assert.equal(rec.path, 'pass-through');
    assert.equal(rec.server, 'up');
    assert.equal(rec.target, 'echo');
    assert.equal(rec.argsDigest, canonicalDigest(args));
    assert.deepEqual(rec.arguments, { text: 'recorded' });
    assert.deepEqual(rec.decision, {
      action: 'ask',
      rule: 'permissions.rules[1]',
      approvedBy: 'the person: allow once',
    });
    assert.deepEqual(rec.outcome, { status: 'ok' });
    assert.ok(rec.bytesIn > 0 && rec.bytesOut > rec.bytesIn);
    assert.equal(textOf(rec.result), 'recorded');
    assert.ok(!Number.isNaN(Date.parse(rec.time)));
    // What the host's Approver was shown: the exact call.
    const a = asked.at(-1)!;
    assert.equal(a.target, 'echo');
    assert.deepEqual(a.arguments, { text: 'recorded' });
    assert.equal(a.argsDigest, rec.argsDigest);
    assert.deepEqual(a.annotations, { readOnlyHint: true });
    assert.equal(a.client.identity, rec.client.identity);
  });

  test('a denied call: the rule, never the upstream; an allowed one: the default', async () => {
    records.length = 0;
    const r = await call('add', { a: 1, b: 2 }, {}, MODERN);
    assert.equal(r.isError, true);
    assert.deepEqual(records[0]!.decision, { action: 'deny', rule: 'permissions.rules[0]' });
    assert.equal(records[0]!.outcome.status, 'denied');
    assert.equal(records[0]!.outcome.code, 'permissions.denied');
    assert.equal(records[0]!.client.revision, MODERN);
    assert.equal(records[0]!.bytesOut, 0);
    await call('fail', {});
    assert.deepEqual(records[1]!.decision, { action: 'allow', rule: 'default' });
    assert.equal(records[1]!.outcome.status, 'isError');
  });

  test("the shim's header names the transport: shim", async () => {
    records.length = 0;
    await call('fail', {}, { 'Mcpx-Shim': '12345' });
    assert.equal(records[0]!.client.transport, 'shim');
    await call('fail', {}, { 'Mcpx-Shim': '12345' }, MODERN);
    assert.equal(records[1]!.client.transport, 'shim');
  });

  test("the palette's calls (the facade's callTool): path palette, transport editor, the same check", async () => {
    records.length = 0;
    const ctx = {
      rev: MODERN,
      signal: new AbortController().signal,
      identity: 'mcpx:editor',
      clientCapabilities: {},
      meta: {},
      progress: () => undefined,
      log: () => undefined,
    };
    const denied = await g.callTool('mcpx_call', { server: 'up', tool: 'add', arguments: { a: 1, b: 1 } }, ctx);
    assert.equal(denied.isError, true);
    assert.match(textOf(denied), /denied by permissions\.rules\[0\]/);
    next = 'once';
    const ok = await g.callTool('mcpx_call', { server: 'up', tool: 'echo', arguments: { text: 'palette' } }, ctx);
    assert.equal(textOf(ok), 'palette');
    assert.deepEqual(
      records.map((r) => [r.path, r.client.transport, r.decision.action]),
      [
        ['palette', 'editor', 'deny'],
        ['palette', 'editor', 'ask'],
      ],
    );
    assert.equal(asked.at(-1)!.path, 'palette');
  });
});

test('no answer within permissions.askTimeout is a denial saying so', async () => {
  next = 'hang';
  records.length = 0;
  const r = await call('echo', { text: 'nobody answers' });
  assert.equal(r.isError, true);
  assert.match(
    textOf(r),
    /permissions\.rules\[1\] asks the person first, and no answer within permissions\.askTimeout/,
  );
  assert.equal(records[0]!.decision.approvedBy, 'timeout');
  assert.equal(records[0]!.outcome.status, 'denied');
  next = 'once';
});

test('"always": a grant in the GrantStore lets the tool through for that client; revoked, it asks again', async () => {
  next = 'always';
  const before = asked.length;
  await call('nested', { server: { host: 'a' } });
  const [grant] = g.grants();
  assert.ok(grant);
  assert.deepEqual(
    { ...grant, id: '', createdAt: 0 },
    { id: '', kind: 'tool', server: 'up', tool: 'nested', client: 'mcpx-tests', createdAt: 0 },
  );
  next = 'deny';
  records.length = 0;
  const through = await call('nested', { server: { host: 'b' } });
  assert.equal(through.isError, undefined, 'let through by the grant, not asked');
  assert.equal(asked.length, before + 1);
  assert.deepEqual(records[0]!.decision, { action: 'allow', rule: `grant:${grant.id}` });
  assert.equal(await g.revokeGrant(grant.id), true);
  assert.equal(await g.revokeGrant(grant.id), false);
  const refused = await call('nested', { server: { host: 'c' } });
  assert.equal(refused.isError, true);
  assert.equal(asked.length, before + 2);
});

test('"always" for the prompt greet is a grant for that prompt: the tool greet still asks, and its own "always" is another grant', async () => {
  const c = new HttpClient(l.endpoint, '2025-11-25');
  await c.initialize();
  next = 'always';
  const before = asked.length;
  const got = (await c.request('prompts/get', { name: 'greet', arguments: { who: 'ada' } })).result as Json;
  assert.ok(Array.isArray(got.messages), 'the prompt, allowed always');
  const grant = g.grants().find((x) => x.tool === 'greet');
  assert.equal(grant?.kind, 'prompt');
  next = 'deny';
  const refused = await call('greet', { text: 'as a tool' });
  assert.equal(refused.isError, true, "the prompt's grant does not let the tool through");
  assert.equal(asked.length, before + 2, 'the tool was asked about');
  assert.equal(asked.at(-1)!.kind, 'tool');
  next = 'always';
  assert.equal(textOf(await call('greet', { text: 'allowed' })), 'allowed');
  const kinds = g
    .grants()
    .filter((x) => x.tool === 'greet')
    .map((x) => x.kind)
    .sort();
  assert.deepEqual(kinds, ['prompt', 'tool']);
  for (const x of g.grants()) await g.revokeGrant(x.id);
  next = 'once';
});

test('without a host Approver the broker asks: an approval waits among the questions', async () => {
  g.setApprover(undefined);
  try {
    const pending = call('echo', { text: 'to the broker' });
    const q = await until(() => g.questions().find((x) => x.method === 'mcpx/approval'), {
      what: 'the approval at the broker',
      every: 10,
    });
    assert.deepEqual((q.params as Json).arguments, { text: 'to the broker' });
    assert.match(String((q.params as Json).message), /mcpx-tests wants to call up\/echo \(permissions\.rules\[1\]\)/);
    assert.match(
      g.answer(q.id, { action: 'perhaps' }) ?? '',
      /action must be one of allow, once, session, always, deny/,
    );
    assert.equal(g.answer(q.id, { action: 'allow' }), undefined);
    assert.equal(textOf(await pending), 'to the broker');
  } finally {
    g.setApprover(host);
  }
});

test('a call cancelled while the person is asked: recorded as cancelled', { timeout: 30_000 }, async () => {
  const before = g.config.permissions;
  g.config.permissions = { ...before!, askTimeoutMs: 60_000 };
  next = 'hang';
  records.length = 0;
  try {
    const c = new HttpClient(l.endpoint, MODERN);
    const stop = new AbortController();
    const n = asked.length;
    const pending = c.request(
      'tools/call',
      { name: 'echo', arguments: { text: 'abandoned' } },
      { signal: stop.signal },
    );
    await until(() => asked.length !== n, { what: 'the approval asked', every: 10 });
    // A 2026-07-28 request's closed stream is its cancellation.
    stop.abort();
    await pending.catch(() => undefined);
    await until(() => records.length > 0, { what: 'the activity record', every: 10 });
    assert.equal(records[0]!.outcome.status, 'cancelled');
    assert.deepEqual(records[0]!.decision, { action: 'ask', rule: 'permissions.rules[1]' });
  } finally {
    g.config.permissions = before;
    next = 'once';
  }
});

test('a task names itself in the record', async () => {
  records.length = 0;
  const c = new HttpClient(l.endpoint, '2025-11-25');
  await c.initialize();
  const created = await c.request('tools/call', {
    name: 'mcpx_call',
    arguments: { server: 'up', tool: 'fail', arguments: {} },
    task: { ttl: 60_000 },
  });
  const taskId = (created.result?.task as Json | undefined)?.taskId;
  assert.equal(typeof taskId, 'string');
  await c.request('tasks/result', { taskId });
  assert.equal(records[0]!.taskId, taskId);
  assert.equal(records[0]!.path, 'mcpx_call');
});

test('"once" is used once: the same call again is asked again', async () => {
  next = 'once';
  const n = asked.length;
  assert.equal(textOf(await call('echo', { text: 'twice' })), 'twice');
  assert.equal(textOf(await call('echo', { text: 'twice' })), 'twice');
  assert.equal(asked.length, n + 2);
  assert.equal(asked[n]!.argsDigest, asked[n + 1]!.argsDigest);
});
