// "Always allow" kept across a restart of the daemon and revoked with `mcpx permissions revoke`; `mcpx
// permissions` printing the rules and saying which one decides; a standalone stdio gateway refusing by
// rule, and asking the call's own client where a rule says `askVia: "client"` (docs/gateway.md
// "Permissions").
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cliJs } from '../harness/gateway';
import { type Daemon, startDaemon } from '../harness/paths';
import { fixtureCommand } from '../harness/upstreams';
import { HttpClient, type Json, StdioClient } from '../harness/wire';
import { until } from '../harness/wait';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-perms-restart-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const PERMISSIONS = {
  askTimeout: '30s',
  rules: [
    { server: 'up', tool: 'add', action: 'deny' },
    { server: 'up', tool: 'echo', action: 'ask' },
    { server: 'up', tool: 'nested', action: 'ask', askVia: 'client' },
  ],
};

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliJs(), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const textOf = (r: Json | undefined): string =>
  ((r?.content as Json[] | undefined) ?? []).map((b) => String(b.text ?? '')).join('');

async function echo(d: Daemon, text: string): Promise<Json> {
  const c = new HttpClient(d.endpoint, '2025-11-25');
  await c.initialize();
  return (await c.request('tools/call', { name: 'echo', arguments: { text } })).result as Json;
}

async function approvals(d: Daemon): Promise<Array<{ id: string; method: string }>> {
  const res = await fetch(new URL('/v1/questions', d.endpoint), {
    headers: { Authorization: `Bearer ${d.endpoint.split('/mcp/')[1]}` },
  });
  return ((await res.json()) as { questions: Array<{ id: string; method: string }> }).questions.filter(
    (q) => q.method === 'mcpx/approval',
  );
}

async function firstApproval(d: Daemon): Promise<string> {
  const q = await until(async () => (await approvals(d))[0], { what: 'an approval', every: 25 });
  return q.id;
}

test('"always" survives a restart of the daemon, and `mcpx permissions revoke` ends it', {
  timeout: 90_000,
}, async () => {
  const o = { dir, config: { permissions: PERMISSIONS } };
  let d = await startDaemon(o);
  try {
    const pending = echo(d, 'first');
    const id = await firstApproval(d);
    // `mcpx elicit` lists it with its arguments, and answers it with a word.
    const listed = await run(['elicit', '--endpoint', d.endpoint], d.env);
    assert.match(
      listed.stdout,
      new RegExp(`${id}  up  mcpx/approval  mcpx-tests wants to call up/echo.*arguments \\{"text":"first"\\}`),
    );
    const answered = await run(['elicit', 'answer', id, 'always', '--endpoint', d.endpoint], d.env);
    assert.equal(answered.code, 0, answered.stderr);
    assert.equal(textOf(await pending), 'first');
    assert.equal(statSync(join(dir, 'mcpx', 'permission-grants.json')).mode & 0o777, 0o600);
  } finally {
    await d.stop();
  }
  d = await startDaemon(o);
  try {
    // Let through by the grant: no question is put.
    assert.equal(textOf(await echo(d, 'after the restart')), 'after the restart');
    assert.deepEqual(await approvals(d), []);
    const grants = await run(['permissions', 'grants', '--endpoint', d.endpoint], d.env);
    const gid = /^([0-9a-f-]{36}) {2}tool up\/echo {2}for mcpx-tests/m.exec(grants.stdout)?.[1];
    assert.ok(gid, grants.stdout);
    const revoked = await run(['permissions', 'revoke', gid, '--endpoint', d.endpoint], d.env);
    assert.equal(revoked.stdout, `revoked ${gid}\n`);
    const again = await run(['permissions', 'revoke', gid, '--endpoint', d.endpoint], d.env);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /no grant/);
    // Revoked: asked again, and refused.
    const pending = echo(d, 'revoked');
    const id = await firstApproval(d);
    assert.equal((await run(['elicit', 'answer', id, 'deny', '--endpoint', d.endpoint], d.env)).code, 0);
    assert.equal((await pending).isError, true);
  } finally {
    await d.stop();
  }
});

test('`mcpx permissions`: the rules in order, and which one decides a call and why', async () => {
  const config = join(dir, 'rules.json');
  writeFileSync(config, JSON.stringify({ servers: {}, permissions: { default: 'ask', ...PERMISSIONS } }));
  const env = { ...process.env, XDG_CONFIG_HOME: dir, XDG_STATE_HOME: dir };
  const all = await run(['permissions', '--config', config], env);
  assert.equal(
    all.stdout,
    [
      `permissions of ${config}:`,
      '  permissions.rules[0]  deny when server=up, tool=add',
      '  permissions.rules[1]  ask when server=up, tool=echo',
      '  permissions.rules[2]  ask (asking the client) when server=up, tool=nested',
      '  default  ask',
      '  askTimeout  30 s',
      '',
    ].join('\n'),
  );
  const one = await run(['permissions', 'up', 'add', '--config', config], env);
  assert.match(
    one.stdout,
    /^up\/add: deny \(permissions\.rules\[0\]\): the first rule that matches: deny when server=up, tool=add\n/,
  );
  const none = await run(['permissions', 'other', 'x', '--client', 'Claude', '--config', config], env);
  assert.match(none.stdout, /^other\/x for Claude: ask \(default\): no rule matches, so the default decides\n/);
  const bad = await run(['permissions', 'up', '--config', config], env);
  assert.equal(bad.code, 2);
});

test('standalone stdio: refused by rule; askVia "client" asks the calling client with a form', {
  timeout: 60_000,
}, async () => {
  const config = join(dir, 'standalone.json');
  const record = join(dir, 'standalone.jsonl');
  writeFileSync(
    config,
    JSON.stringify({
      servers: { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up', '--record', record]) },
      settings: { 'mcp.passthrough': 'up' },
      permissions: PERMISSIONS,
    }),
  );
  const env = { ...process.env, XDG_CONFIG_HOME: dir, XDG_STATE_HOME: join(dir, 'standalone-state') };
  const c = new StdioClient(
    process.execPath,
    [cliJs(), 'serve', '--transport', 'stdio', '--standalone', '--config', config],
    '2025-11-25',
    { elicitation: {} },
    env,
  );
  const forms: Json[] = [];
  c.answer = (req) => {
    forms.push(req);
    const message = String((req.params as Json).message);
    return { action: 'accept', content: { decision: message.includes('"host":"yes"') ? 'once' : 'deny' } };
  };
  try {
    await c.initialize();
    const denied = (await c.request('tools/call', { name: 'add', arguments: { a: 1, b: 1 } })).result as Json;
    assert.match(textOf(denied), /denied by permissions\.rules\[0\]/);
    const yes = (await c.request('tools/call', { name: 'nested', arguments: { server: { host: 'yes' } } }))
      .result as Json;
    assert.equal(yes.isError, undefined, JSON.stringify(yes));
    const no = (await c.request('tools/call', { name: 'nested', arguments: { server: { host: 'no' } } }))
      .result as Json;
    assert.equal(no.isError, true);
    assert.match(textOf(no), /permissions\.rules\[2\] asks the person first, and denied by the client/);
    assert.equal(forms.length, 2);
    assert.equal(forms[0]!.method, 'elicitation/create');
    assert.match(String((forms[0]!.params as Json).message), /up\/nested/);
    // What the upstream received: the call allowed, neither the one refused by rule nor by the client.
    const calls = readFileSync(record, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { dir: string; frame: Json }).frame)
      .filter((f) => f.method === 'tools/call')
      .map((f) => JSON.stringify(f.params));
    assert.deepEqual(calls, ['{"name":"nested","arguments":{"server":{"host":"yes"}}}']);
  } finally {
    await c.close();
  }
});
