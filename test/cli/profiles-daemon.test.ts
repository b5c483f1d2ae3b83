// Profiles through the real `mcpx` command (docs/gateway.md "Profiles"): a running `mcpx daemon` with a
// profiles block; `mcpx profiles` naming each profile's URL (with the secret), its shim command and its
// counts; `mcpx serve --transport stdio --profile NAME` (the shim, both eras), `--standalone --profile`
// and `mcpx tools`/`call`/`read`/`exec --profile NAME` getting that profile and nothing else; a changed
// profiles block applied in place by `mcpx reload`, the shim's client told. Upstreams are real stdio fixtures; every frame a client receives is validated
// against the schema of its revision (test/harness/wire.ts).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { cliJs } from '../harness/gateway';
import { type Daemon, startDaemon } from '../harness/paths';
import { killAll } from '../harness/upstreams';
import { HttpClient, type Json, StdioClient } from '../harness/wire';
import { until } from '../harness/wait';

after(() => killAll());

const PROFILES = {
  solo: { servers: { up: { include: ['echo', 'whoami'], rename: { whoami: 'who' } } }, mode: 'passthrough' },
  agg: { servers: ['mine'], mode: 'aggregated' },
};

function mcpx(
  args: string[],
  env: NodeJS.ProcessEnv,
  stdin?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliJs(), ...args], { env, stdio: 'pipe' });
    child.stdin.end(stdin ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const names = (r: Json): string[] => (((r.result as Json).tools as Json[]) ?? []).map((t) => String(t.name));
const textOf = (r: Json): string =>
  (((r.result as Json | undefined)?.content as Json[] | undefined) ?? []).map((c) => String(c.text ?? '')).join('');

describe('profiles through mcpx daemon, mcpx profiles and the shim', () => {
  let d: Daemon;
  const clients: StdioClient[] = [];
  const shim = (rev: '2025-11-25' | '2026-07-28', ...more: string[]) => {
    const c = new StdioClient(
      process.execPath,
      [cliJs(), 'serve', '--transport', 'stdio', '--connect', 'auto', ...more],
      rev,
      {},
      d.env,
    );
    clients.push(c);
    return c;
  };
  before(async () => {
    d = await startDaemon({ config: { profiles: PROFILES } });
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await d?.stop();
  });

  test('mcpx profiles: each profile with its URL (the secret in it), shim command and counts', async () => {
    const out = await mcpx(['profiles', '--json'], d.env);
    assert.equal(out.code, 0, out.stderr);
    const list = JSON.parse(out.stdout) as Array<Json & { name: string }>;
    const solo = list.find((p) => p.name === 'solo')!;
    assert.equal(solo.url, `${d.endpoint}/solo`);
    assert.deepEqual(solo.shim, ['mcpx', 'serve', '--transport', 'stdio', '--profile', 'solo']);
    assert.deepEqual(solo.servers, ['up']);
    assert.equal(solo.tools, 2);
    assert.equal(solo.listed, 2);
    const agg = list.find((p) => p.name === 'agg')!;
    assert.ok(Number(agg.tools) > 2, "mine's tools, all of them");
    assert.equal(agg.listed, 6, 'the six gateway tools');
    // The URL works as it is shown.
    const c = new HttpClient(String(solo.url), '2026-07-28');
    assert.deepEqual(names({ result: (await c.request('tools/list')).result }), ['echo', 'who']);
    const text = await mcpx(['profiles'], d.env);
    assert.match(text.stdout, /^solo \(passthrough\): 1 server\(s\), 2 tool\(s\) offered, 2 listed$/m);
    assert.match(text.stdout, /shim: mcpx serve --transport stdio --profile agg/);
  });

  test('the shim with --profile gets that profile, in both eras', async () => {
    for (const rev of ['2025-11-25', '2026-07-28'] as const) {
      const c = shim(rev, '--profile', 'solo');
      if (rev === '2025-11-25') await c.initialize();
      assert.deepEqual(names(await c.request('tools/list')), ['echo', 'who']);
      assert.match(textOf(await c.request('tools/call', { name: 'who', arguments: {} })), /^up:/);
      const refused = await c.request('tools/call', { name: 'mcpx_call', arguments: { server: 'up', tool: 'add' } });
      assert.match(String((refused.error as Json | undefined)?.message), /no tool named "mcpx_call"/);
    }
    // Without --profile: the default endpoint (mcp.passthrough up: every tool of up).
    const plain = shim('2026-07-28');
    assert.ok(names(await plain.request('tools/list')).includes('add'));
  });

  test('a shim naming a profile nobody configured is refused; a bad name is a usage error', async () => {
    const c = shim('2026-07-28', '--profile', 'nobody');
    const r = await c.request('tools/list');
    assert.match(JSON.stringify(r.error ?? r), /no profile of that name/);
    const bad = await mcpx(['serve', '--transport', 'stdio', '--profile', 'Bad/Name'], d.env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /a profile name is 1 to 32 of a-z 0-9 -/);
  });

  test('mcpx tools, call, read, exec --profile NAME: that profile, and nothing outside it', async () => {
    // agg: mine only (aggregated, so the gateway tools the commands use are there).
    const listed = await mcpx(['tools', '--profile', 'agg'], d.env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^mine$/m);
    assert.doesNotMatch(listed.stdout, /^up$/m);
    const plain = await mcpx(['tools'], d.env);
    assert.match(plain.stdout, /^up$/m, 'without --profile: the default endpoint, up included');
    const inside = await mcpx(['call', '--profile', 'agg', 'mine', 'whoami', '--text'], d.env);
    assert.equal(inside.code, 0, inside.stderr);
    assert.match(inside.stdout, /^mine:/);
    const outside = await mcpx(['call', '--profile', 'agg', 'up', 'echo', '{"text":"x"}'], d.env);
    assert.equal(outside.code, 2, outside.stderr);
    assert.match(outside.stderr, /^mcpx: no server named "up"; configured: mine \(-32602\)$/m);
    const script = await mcpx(
      ['exec', '-', '--profile', 'agg'],
      d.env,
      "const r = await mcpx.call('mine', 'whoami', {}); console.log(r.content[0].text); await mcpx.call('up', 'echo', { text: 'x' });",
    );
    assert.equal(script.code, 1, 'the script throws at the call outside the profile');
    assert.match(script.stderr, /^mine:/m);
    assert.match(script.stderr, /no server named "up"; configured: mine/);
    const read = await mcpx(['read', 'mcpx://up/anything', '--profile', 'agg'], d.env);
    assert.equal(read.code, 2);
    assert.match(read.stderr, /not found/i);
  });

  test('mcpx tools, call --profile: a profile nobody configured, or one without the gateway tools, is named (exit 2)', async () => {
    for (const args of [['tools'], ['call', 'mine', 'whoami']]) {
      const r = await mcpx([...args, '--profile', 'nobody'], d.env);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /no profile named "nobody"/);
      assert.equal(r.stdout, '');
    }
    const pass = await mcpx(['tools', '--profile', 'solo'], d.env);
    // solo is passthrough: no gateway tool, so none of what the commands call.
    assert.equal(pass.code, 2);
    assert.match(
      pass.stderr,
      /^mcpx: no tool named "mcpx_tools" at profile "solo": its mode does not offer mcpx_tools/,
    );
    const bad = await mcpx(['tools', '--profile', 'Bad/Name'], d.env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /a profile name is 1 to 32 of a-z 0-9 -/);
  });

  test('--standalone --profile: a whole gateway serving that profile', async () => {
    const c = new StdioClient(
      process.execPath,
      [cliJs(), 'serve', '--transport', 'stdio', '--standalone', '--config', d.config, '--profile', 'agg'],
      '2025-11-25',
      {},
      d.env,
    );
    clients.push(c);
    await c.initialize();
    assert.deepEqual(names(await c.request('tools/list')), [
      'mcpx_call',
      'mcpx_exec',
      'mcpx_servers',
      'mcpx_tools',
      'mcpx_describe',
      'mcpx_search',
    ]);
    const out = await c.request('tools/call', {
      name: 'mcpx_call',
      arguments: { server: 'up', tool: 'echo', arguments: { text: 'x' } },
    });
    assert.match(JSON.stringify(out), /no server named \\"up\\"; configured: mine/);
    const missing = await mcpx(
      ['serve', '--transport', 'stdio', '--standalone', '--config', d.config, '--profile', 'nobody'],
      d.env,
    );
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no profile named "nobody"/);
  });

  test('mcpx reload applies a changed profiles block in place; the profile’s client is told', async () => {
    const c = shim('2025-11-25', '--profile', 'solo');
    await c.initialize();
    assert.deepEqual(names(await c.request('tools/list')), ['echo', 'who']);
    // A client of agg (aggregated: no upstream tools listed, no tools.listChanged declared).
    const agg = shim('2025-11-25', '--profile', 'agg');
    const init = await agg.initialize();
    assert.deepEqual(((init.result as Json).capabilities as Json).tools, {});
    const file = JSON.parse(readFileSync(d.config, 'utf8')) as Json;
    (((file.profiles as Json).solo as Json).servers as Json).up = { include: ['echo', 'add'] };
    writeFileSync(d.config, JSON.stringify(file));
    const r = await mcpx(['reload'], d.env);
    assert.equal(r.code, 0, r.stderr);
    await until(() => c.frames.some((f) => f.method === 'notifications/tools/list_changed'), {
      what: 'tools/list_changed',
      timeout: 5000,
    });
    assert.ok(c.frames.some((f) => f.method === 'notifications/tools/list_changed'));
    assert.deepEqual(names(await c.request('tools/list')), ['add', 'echo']);
    // agg's client hears its prompts may have changed, never of tools it does not list.
    await until(() => agg.frames.some((f) => f.method === 'notifications/prompts/list_changed'), {
      what: 'prompts/list_changed',
      timeout: 5000,
    });
    assert.ok(agg.frames.some((f) => f.method === 'notifications/prompts/list_changed'));
    assert.ok(!agg.frames.some((f) => f.method === 'notifications/tools/list_changed'));
  });
});
