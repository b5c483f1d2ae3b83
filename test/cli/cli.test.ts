// The headless command line as a user runs it: dist/cli.js in a real process.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import Module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, test } from 'node:test';
import { beyondLoopback } from '../../src/app/app';
import { elicitSecret } from '../../src/config/secret';
import { cliJs } from '../harness/gateway';
import { HttpClient, type Json, StdioClient } from '../harness/wire';

const cli = cliJs();
const dir = mkdtempSync(join(tmpdir(), 'mcpx-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));
// An isolated XDG config home, so a user's own ~/.config/mcpx/mcp.json never leaks into a test.
const env = { ...process.env, XDG_CONFIG_HOME: dir, XDG_STATE_HOME: dir, MCPX_PORT: '' };

function run(
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { env: { ...env, ...extraEnv } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('mcpx CLI', () => {
  test('daemon --port 0 prints its endpoint, serves MCP, and stops on SIGTERM', async () => {
    const config = join(dir, 'c.json');
    writeFileSync(config, JSON.stringify({ servers: { a: { command: 'true' } }, settings: { 'mcp.pageSize': 7 } }));
    const child = spawn(process.execPath, [cli, 'daemon', '--port', '0', '--config', config], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise((r2) => child.on('exit', r2));
    try {
      const line = await new Promise<string>((resolve) =>
        createInterface({ input: child.stdout }).once('line', resolve),
      );
      const url = /mcpx listening on (http:\/\/127\.0\.0\.1:\d+\/mcp\/[A-Za-z0-9_-]{43})$/.exec(line)?.[1];
      assert.ok(url, line);
      const c = new HttpClient(url, '2026-07-28');
      const r = await c.request('tools/call', { name: 'mcpx_servers', arguments: {} });
      assert.deepEqual((r.result!.structuredContent as Json).servers, [
        { name: 'a', scope: 'shared', state: 'stopped', transport: 'stdio', sandbox: false, passthrough: false },
      ]);
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0);
  });

  test('the daemon warns when it binds beyond loopback, and only then (the warning it prints, per address)', async () => {
    // Tests bind loopback only: the decision is checked for every kind of address, and a daemon on
    // 127.0.0.1 is seen not to warn.
    for (const address of ['0.0.0.0', '::', '192.168.1.20', '10.0.0.1', 'gateway.lan'])
      assert.equal(
        beyondLoopback(address),
        `WARNING: listening on ${address}, beyond loopback: anything that can reach this port can run tools as you.`,
      );
    for (const address of ['127.0.0.1', '127.0.0.2', '::1', 'localhost'])
      assert.equal(beyondLoopback(address), undefined);
    const child = spawn(process.execPath, [cli, 'daemon', '--port', '0', '--address', '127.0.0.1'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise((r2) => child.on('exit', r2));
    await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
    child.kill('SIGTERM');
    await exited;
    assert.doesNotMatch(stderr, /beyond loopback/);
  });

  test('the endpoint secret: created 0600 in the state dir, stable across restarts; mcpx elicit sends it', async () => {
    const daemonUrl = async (): Promise<{ url: string; stop: () => Promise<unknown> }> => {
      const child = spawn(process.execPath, [cli, 'daemon', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      const exited = new Promise((r2) => child.on('exit', r2));
      const line = await new Promise<string>((resolve) =>
        createInterface({ input: child.stdout }).once('line', resolve),
      );
      const url = /mcpx listening on (\S+)$/.exec(line)?.[1];
      assert.ok(url, line);
      return { url, stop: () => (child.kill('SIGTERM'), exited) };
    };
    const first = await daemonUrl();
    const file = join(dir, 'mcpx', 'endpoint-secret');
    const secret = readFileSync(file, 'utf8').trim();
    try {
      assert.equal(statSync(file).mode & 0o777, 0o600, 'owner-only');
      assert.match(first.url, new RegExp(`/mcp/${secret}$`), 'the listening line is the URL with the secret');
      const bare = first.url.slice(0, -secret.length - 1);
      assert.equal((await fetch(bare, { method: 'POST', body: '{}' })).status, 401);
      // mcpx elicit, given the bare endpoint, reads the secret from the state directory.
      const listed = await run(['elicit', '--endpoint', bare]);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /no questions waiting/);
      // Without it (another state directory) it is refused, and the secret is never in the message.
      const refused = await run(['elicit', '--endpoint', bare], { XDG_STATE_HOME: join(dir, 'elsewhere') });
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /Unauthorized/);
      assert.ok(!refused.stderr.includes(secret));
    } finally {
      await first.stop();
    }
    const second = await daemonUrl();
    try {
      assert.match(second.url, new RegExp(`/mcp/${secret}$`), 'the same secret after a restart');
    } finally {
      await second.stop();
    }
  });

  test('serve --transport stdio speaks MCP on its own stdin/stdout', async () => {
    const c = new StdioClient(process.execPath, [cli, 'serve', '--transport', 'stdio', '--standalone'], '2025-11-25');
    try {
      const init = await c.initialize();
      assert.equal((init.result as Json).protocolVersion, '2025-11-25');
      const tools = (await c.request('tools/list')).result as Json;
      assert.deepEqual(
        (tools.tools as Json[]).map((t) => t.name),
        ['mcpx_call', 'mcpx_exec', 'mcpx_servers', 'mcpx_tools', 'mcpx_describe', 'mcpx_search'],
      );
    } finally {
      assert.equal(await c.close(), 0);
    }
  });

  test('serve --transport http is refused with where to go instead', async () => {
    const r = await run(['serve', '--transport', 'http']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /mcpx daemon/);
  });

  test('settings shows each value and where it came from', async () => {
    const r = await run(['settings', '--mcp-spec', '2025-06-18', '--set', 'mcp.pageSize=9'], {
      MCPX_POOL_CALL_TIMEOUT: '30s',
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^pool\.callTimeout\s+30000\s+\(env: MCPX_POOL_CALL_TIMEOUT\)$/m);
    assert.match(r.stdout, /^spec\.first\s+"2025-06-18"\s+\(flag\)$/m);
    assert.match(r.stdout, /^mcp\.pageSize\s+9\s+\(flag\)$/m);
    assert.match(r.stdout, /^transport\.sseKeepAlive\s+15000\s+\(default\)$/m);
    assert.match(r.stdout, /^config: embedded default$/m);
  });

  test('settings names the variable a value came from (an alias too), and the precedence in force', async () => {
    const r = await run(['settings'], { MCPX_MCP_SPEC: '2025-06-18', MCPX_SPEC_PRECEDENCE: '2024-11-05' });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^spec\.first\s+"2025-06-18"\s+\(env: MCPX_MCP_SPEC\)$/m);
    assert.match(
      r.stdout,
      /^spec\.precedence\s+\["2025-06-18","2024-11-05","2026-07-28","2025-11-25","2025-03-26"\] \(as given: \["2024-11-05"\]\)\s+\(env: MCPX_SPEC_PRECEDENCE\)$/m,
    );
    const plain = await run(['settings']);
    assert.match(
      plain.stdout,
      /^spec\.precedence\s+\["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"\]\s+\(default\)$/m,
    );
  });

  test('an unknown revision is refused with the valid ones; so is an unknown flag', async () => {
    const bad = await run(['daemon', '--port', '0', '--mcp-spec', '2030-01-01']);
    assert.equal(bad.code, 2);
    assert.match(
      bad.stderr,
      /spec\.first: unknown revision "2030-01-01"; valid revisions: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28/,
    );
    const env2 = await run(['settings'], { MCPX_SPEC_PRECEDENCE: '2025-06-18,nope' });
    assert.match(env2.stderr, /spec\.precedence: unknown revision "nope"/);
    const flag = await run(['daemon', '--frobnicate', '1']);
    assert.match(flag.stderr, /--frobnicate: unknown flag/);
  });

  test('the code cache: written on the first start, loaded on the next, a damaged one replaced, none with MCPX_CODE_CACHE=0', async (t) => {
    const state = mkdtempSync(join(dir, 'state-'));
    const cacheDir = join(state, 'mcpx', 'code-cache');
    const go = (extra: Record<string, string> = {}) => run(['settings'], { XDG_STATE_HOME: state, ...extra });
    const off = await go({ MCPX_CODE_CACHE: '0' });
    assert.equal(off.code, 0, off.stderr);
    assert.equal(existsSync(cacheDir), false, 'MCPX_CODE_CACHE=0 wrote a cache');
    const first = await go();
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, off.stdout);
    assert.ok(readdirSync(cacheDir).length > 0, 'no code cache after the first start');
    if ((Module as { enableCompileCache?: unknown }).enableCompileCache)
      return t.skip('Node 22+: node:module keeps this cache; the rest is its business');
    // Node 20: mcpx's own loader (src/bin.ts), one file per bundle and runtime.
    const [name, ...others] = readdirSync(cacheDir);
    assert.deepEqual(others, []);
    const file = join(cacheDir, name!);
    const ino = statSync(file).ino;
    const second = await go();
    assert.equal(second.stdout, off.stdout);
    assert.equal(statSync(file).ino, ino, 'an accepted cache is not written again');
    writeFileSync(file, Buffer.alloc(4096, 7)); // damaged: V8 refuses it, the start goes on and replaces it
    const third = await go();
    assert.equal(third.code, 0, third.stderr);
    assert.equal(third.stdout, off.stdout);
    assert.notDeepEqual(readFileSync(file), Buffer.alloc(4096, 7));
    assert.deepEqual(readdirSync(cacheDir), [name]);
    // Caches of other builds: the newest three are kept, the oldest goes.
    const foreign = ['mcpx-a.v8', 'mcpx-b.v8', 'mcpx-c.v8'];
    foreign.forEach((f, i) => {
      writeFileSync(join(cacheDir, f), 'x');
      utimesSync(join(cacheDir, f), 1000 + i, 1000 + i);
    });
    rmSync(file);
    assert.equal((await go()).code, 0);
    assert.deepEqual(readdirSync(cacheDir).sort(), [name, 'mcpx-b.v8', 'mcpx-c.v8'].sort());
  });
});

describe('mcpx elicit: which secret goes where', () => {
  test("the install's secret goes only to a loopback host; a secret in the path goes where the path says", () => {
    const stored = () => 'STORED';
    for (const url of [
      'http://127.0.0.1:8899/mcp',
      'http://127.4.5.6/',
      'http://localhost:1/mcp',
      'http://[::1]:9/mcp',
    ])
      assert.equal(elicitSecret(new URL(url), stored), 'STORED', url);
    for (const url of [
      'http://example.invalid:1/',
      'http://127.example.invalid/mcp',
      'http://localhost.example.invalid/mcp',
      'http://10.0.0.1:8899/mcp',
      'http://[::2]/mcp',
    ])
      assert.equal(elicitSecret(new URL(url), stored), undefined, url);
    assert.equal(elicitSecret(new URL('http://example.invalid/mcp/abc'), stored), 'abc');
  });
});
