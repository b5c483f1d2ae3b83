// Stdio upstreams in a sandbox (docs/security.md "The upstream sandbox"): a real fixture server under
// bubblewrap behind a real gateway, reached by the official SDK client over Streamable HTTP (every frame
// checked against its revision's schema). What it may read, write and reach works; what it may not
// fails inside the server — and in a child it spawns — and the decoy key's contents appear nowhere.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Listening, listen } from '../../src/app/app';
import { parseConfig } from '../../src/config/file';
import { Settings } from '../../src/config/settings';
import { Gateway } from '../../src/gateway/gateway';
import { fixture, repoRoot } from '../harness/gateway';
import { validating } from '../harness/sdk';
import { UpstreamsTree } from '../../src/vscode/views/upstreams';
import { fakeKit } from '../vscode-fakes/editor';
import { fakeHost } from '../vscode-fakes/host';
import { until } from '../harness/wait';

const PROBE = fixture('upstream/sandbox-probe');
const dir = mkdtempSync(join(tmpdir(), 'mcpx-sandbox-test-'));
const home = join(dir, 'home');
const ws = join(dir, 'workspace');
const out = join(dir, 'out');
const outside = join(dir, 'outside');
const state = join(dir, 'state');
const DECOY = `decoy-key-${randomBytes(16).toString('hex')}`;
const decoy = join(home, '.ssh', 'id_ed25519');
for (const d of [join(home, '.ssh'), ws, out, outside, state]) mkdirSync(d, { recursive: true });
writeFileSync(decoy, DECOY);
writeFileSync(join(ws, 'inside.txt'), 'inside the workspace');

/** A loopback listener that says `word` to whoever connects. */
async function speaker(word: string): Promise<{ server: Server; port: number }> {
  const server = createServer((c) => c.end(word));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as { port: number }).port };
}

const logs: string[] = [];
const texts: string[] = [];

async function start(servers: Record<string, unknown>, settings: Record<string, unknown> = {}) {
  const config = parseConfig({ servers, roots: [ws] }, 'test', { env: process.env });
  const s = new Settings([{ source: 'flag', values: settings }]);
  const g = new Gateway(config, s, { stateDir: state, log: (l) => logs.push(l) });
  const l: Listening = await listen({ provider: g, settings: s, port: 0, address: '127.0.0.1' });
  const client = new Client({ name: 'sandbox-test', version: '1.0.0' });
  await client.connect(validating(new StreamableHTTPClientTransport(new URL(l.endpoint))).transport);
  const attempt = async (server: string, args: Record<string, unknown>, who?: string): Promise<string> => {
    const r = await client.callTool({
      name: 'mcpx_call',
      arguments: { server, tool: 'try', arguments: args },
      ...(who ? { _meta: { 'dev.mcpx/session': who } } : {}),
    });
    const text = JSON.stringify(r.content);
    texts.push(text);
    assert.equal(r.isError ?? false, false, text);
    return (r.content as Array<{ text: string }>)[0]!.text;
  };
  const close = async () => {
    await client.close();
    await l.close();
    await g.close();
  };
  return { g, client, attempt, close };
}

after(() => rmSync(dir, { recursive: true, force: true }));

describe('a sandboxed stdio upstream', () => {
  let allowed: { server: Server; port: number };
  let denied: { server: Server; port: number };
  let gw: Awaited<ReturnType<typeof start>>;
  before(async () => {
    allowed = await speaker('hello from the allowed port');
    denied = await speaker('hello from the other port');
    gw = await start({
      probe: {
        command: process.execPath,
        args: [PROBE],
        env: { HOME: home },
        sandbox: { write: [out], network: { loopbackPorts: [allowed.port] } },
      },
      web: {
        command: process.execPath,
        args: [PROBE],
        sandbox: { network: { hosts: [`localhost:${allowed.port}`] } },
      },
    });
  });
  after(async () => {
    await gw.close();
    allowed.server.close();
    denied.server.close();
  });

  for (const child of [false, true]) {
    const who = child ? 'a child it spawns' : 'the server';
    test(`${who}: reads the workspace, writes the listed path and its private directory, reaches the allowed port`, async () => {
      assert.equal(
        await gw.attempt('probe', { op: 'read', path: join(ws, 'inside.txt'), child }),
        'ok: inside the workspace',
      );
      assert.equal(await gw.attempt('probe', { op: 'write', path: join(out, `w-${child}`), child }), 'ok: written');
      assert.equal(readFileSync(join(out, `w-${child}`), 'utf8'), 'written by sandbox-probe\n');
      const tmp = (await gw.attempt('probe', { op: 'env', child })).slice('ok: '.length);
      assert.match(tmp, /mcpx-sandbox-/, "TMPDIR is the instance's private directory");
      assert.equal(await gw.attempt('probe', { op: 'write', path: join(tmp, 'scratch'), child }), 'ok: written');
      assert.equal(
        await gw.attempt('probe', { op: 'connect', port: allowed.port, child }),
        'ok: hello from the allowed port',
      );
    });

    test(`${who}: cannot read the decoy key, write outside, or reach another loopback port`, async () => {
      assert.match(await gw.attempt('probe', { op: 'read', path: decoy, child }), /^failed: ENOENT$/);
      assert.match(await gw.attempt('probe', { op: 'list', path: home, child }), /^failed: ENOENT$/);
      assert.match(
        await gw.attempt('probe', { op: 'write', path: join(outside, 'x'), child }),
        /^failed: E(NOENT|ROFS)$/,
      );
      assert.match(await gw.attempt('probe', { op: 'write', path: join(ws, 'x'), child }), /^failed: EROFS$/);
      assert.match(
        await gw.attempt('probe', { op: 'write', path: '/tmp/mcpx-escape', child }),
        /^failed: E(NOENT|ROFS)$/,
      );
      assert.ok(!existsSync(join(outside, 'x')) && !existsSync(join(ws, 'x')) && !existsSync('/tmp/mcpx-escape'));
      assert.match(await gw.attempt('probe', { op: 'connect', port: denied.port, child }), /^failed: ECONNREFUSED$/);
    });
  }

  test("network hosts: a listed host through the proxy, nothing else; a refusal is in the server's log", async () => {
    assert.equal(
      await gw.attempt('web', { op: 'proxy', path: `localhost:${allowed.port}` }),
      'ok: hello from the allowed port',
    );
    assert.equal(
      await gw.attempt('web', { op: 'proxy', path: `localhost:${denied.port}` }),
      'failed: HTTP/1.1 403 Forbidden',
    );
    assert.equal(
      await gw.attempt('web', { op: 'proxy', path: `localhost:${allowed.port}`, child: true }),
      'ok: hello from the allowed port',
    );
    assert.match(await gw.attempt('web', { op: 'connect', port: allowed.port }), /^failed: ECONNREFUSED$/);
    assert.ok(
      logs.includes(`[web] sandbox refused a connection to localhost:${denied.port}: not in sandbox.network.hosts`),
      logs.join('\n'),
    );
  });

  test('mcpx_servers and the Upstreams row say it is sandboxed, and with what', async () => {
    await gw.attempt('probe', { op: 'env' }); // running
    const r = await gw.client.callTool({ name: 'mcpx_servers', arguments: {} });
    const [probe] = (r.structuredContent as { servers: Array<{ name: string; sandbox: unknown }> }).servers;
    assert.deepEqual(probe!.sandbox, {
      enabled: true,
      read: [],
      write: [out],
      network: { loopbackPorts: [allowed.port] },
    });
    const tree = new UpstreamsTree(fakeHost({ gateway: gw.g }), fakeKit);
    try {
      const row = tree.getTreeItem((await tree.getChildren())[0]!) as { description?: string; tooltip?: string };
      assert.match(row.description ?? '', /· sandboxed$/);
      assert.equal(
        row.tooltip,
        `probe: running\nSandboxed (bubblewrap): reads the workspace roots, its own directories and the system's libraries; writes its private temporary directory, and ${out}; loopback ports ${allowed.port}`,
      );
    } finally {
      tree.dispose();
    }
  });
});

/** Host pids of the processes whose command line holds `marker`. */
function pidsWith(marker: string): number[] {
  const out: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(marker)) out.push(Number(p));
    } catch {
      // gone
    }
  }
  return out;
}

describe('the sandbox is kept by every instance and ends with it', () => {
  const probe = { command: process.execPath, args: [PROBE], env: { HOME: home } };

  test('scope "identity": each instance has its own private directory, which the other cannot see', async () => {
    const gw = await start({ mine: { ...probe, scope: 'identity', sandbox: true } });
    try {
      const alice = (await gw.attempt('mine', { op: 'env' }, 'alice')).slice('ok: '.length);
      const bob = (await gw.attempt('mine', { op: 'env' }, 'bob')).slice('ok: '.length);
      assert.notEqual(alice, bob);
      assert.equal(await gw.attempt('mine', { op: 'write', path: join(alice, 'note') }, 'alice'), 'ok: written');
      assert.match(await gw.attempt('mine', { op: 'read', path: join(alice, 'note') }, 'bob'), /^failed: ENOENT$/);
      assert.match(await gw.attempt('mine', { op: 'read', path: decoy }, 'bob'), /^failed: ENOENT$/);
    } finally {
      await gw.close();
    }
  });

  test("a restarted instance is sandboxed again; the ended one's private directory is gone", async () => {
    const gw = await start({ probe: { ...probe, sandbox: true } });
    try {
      const first = (await gw.attempt('probe', { op: 'env' })).slice('ok: '.length);
      assert.ok(existsSync(first));
      await assert.rejects(
        gw.client.callTool({
          name: 'mcpx_call',
          arguments: { server: 'probe', tool: 'try', arguments: { op: 'exit' } },
        }),
        /exited with code 3/,
      );
      const second = (await gw.attempt('probe', { op: 'env' })).slice('ok: '.length);
      assert.notEqual(second, first);
      assert.match(await gw.attempt('probe', { op: 'read', path: decoy }), /^failed: ENOENT$/);
      await until(() => !existsSync(first), { what: 'the first private directory removed' });
    } finally {
      await gw.close();
    }
  });

  test('a reload that changes the server starts it sandboxed with the new block', async () => {
    const gw = await start({ probe: { ...probe, sandbox: true } });
    try {
      assert.match(await gw.attempt('probe', { op: 'write', path: join(out, 'reload') }), /^failed: E(NOENT|ROFS)$/);
      const servers = { probe: { ...probe, sandbox: { write: [out] } } };
      await gw.g.reload(parseConfig({ servers, roots: [ws] }, 'test', { env: process.env }), new Settings());
      assert.equal(await gw.attempt('probe', { op: 'write', path: join(out, 'reload') }), 'ok: written');
      assert.match(await gw.attempt('probe', { op: 'read', path: decoy }), /^failed: ENOENT$/);
    } finally {
      await gw.close();
    }
  });

  test('a reload that turns upstream.sandbox on restarts a server without its own block inside it', async () => {
    writeFileSync(join(home, 'plain.txt'), 'a plain file in the home');
    const gw = await start({ probe, own: { ...probe, sandbox: false } });
    try {
      const plain = { op: 'read', path: join(home, 'plain.txt') };
      assert.equal(await gw.attempt('probe', plain), 'ok: a plain file in the home', 'unsandboxed by default');
      const config = parseConfig({ servers: { probe, own: { ...probe, sandbox: false } }, roots: [ws] }, 'test', {
        env: process.env,
      });
      const diff = await gw.g.reload(config, new Settings([{ source: 'flag', values: { 'upstream.sandbox': true } }]));
      assert.deepEqual([diff.changed, diff.kept], [['probe'], ['own']]);
      assert.match(await gw.attempt('probe', plain), /^failed: ENOENT$/);
      assert.equal(await gw.attempt('own', plain), 'ok: a plain file in the home', 'its own block says no sandbox');
    } finally {
      await gw.close();
    }
  });

  test('stopping the instance ends everything inside, even a process that left its group', async () => {
    const marker = `mcpx-sleeper-${randomBytes(6).toString('hex')}`;
    const gw = await start({ probe: { ...probe, sandbox: true } });
    let stopped = false;
    try {
      assert.equal(await gw.attempt('probe', { op: 'spawn', path: marker }), 'ok: spawned');
      await until(() => pidsWith(marker).length === 1, { what: 'the sleeper runs' });
      await gw.close();
      stopped = true;
      await until(() => pidsWith(marker).length === 0, { what: 'the sleeper is gone' });
    } finally {
      if (!stopped) await gw.close();
      for (const pid of pidsWith(marker)) process.kill(pid, 'SIGKILL');
    }
  });

  test('no bubblewrap on the PATH: the server does not start, and the error says what to install', async () => {
    const gw = await start({ probe: { ...probe, env: { HOME: home, PATH: dir }, sandbox: true } });
    try {
      await assert.rejects(
        gw.client.callTool({
          name: 'mcpx_call',
          arguments: { server: 'probe', tool: 'try', arguments: { op: 'env' } },
        }),
        /bubblewrap \(bwrap\) is not installed, so the server is not started: install bubblewrap \(Debian and Ubuntu: apt install bubblewrap/,
      );
    } finally {
      await gw.close();
    }
  });
});

describe('the reference filesystem server from npm, sandboxed with one root', () => {
  const FS = join(repoRoot(), 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
  let gw: Awaited<ReturnType<typeof start>>;
  const call = async (tool: string, args: Record<string, unknown>) => {
    const r = await gw.client.callTool({ name: 'mcpx_call', arguments: { server: 'files', tool, arguments: args } });
    const text = (r.content as Array<{ text: string }>).map((c) => c.text).join('\n');
    texts.push(text);
    return { text, isError: r.isError ?? false };
  };
  before(async () => {
    // Told it may serve the home directory too: inside the sandbox there is none to serve.
    gw = await start({ files: { command: process.execPath, args: [FS, ws, home], sandbox: true } });
  });
  after(() => gw.close());

  test('lists and reads inside its root', async () => {
    const listed = await call('list_directory', { path: ws });
    assert.equal(listed.isError, false, listed.text);
    assert.match(listed.text, /\[FILE\] inside\.txt/);
    assert.equal((await call('read_text_file', { path: join(ws, 'inside.txt') })).text, 'inside the workspace');
  });

  test('cannot list or read outside it, even asked by path; what the sandbox hid is in its log', async () => {
    for (const path of [home, join(home, '.ssh'), outside, '/root', tmpdir()]) {
      const r = await call('list_directory', { path });
      assert.equal(r.isError, true, `${path}: ${r.text}`);
    }
    const r = await call('read_text_file', { path: decoy });
    assert.equal(r.isError, true);
    assert.ok(
      logs.some((l) => l.includes(`[files] Warning: Cannot access directory ${home}, skipping`)),
      logs.join('\n'),
    );
  });
});

/** Every file under `d`, read whole. */
function allText(d: string): string {
  let s = '';
  for (const e of readdirSync(d, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) s += readFileSync(join(e.parentPath, e.name), 'utf8');
  }
  return s;
}

test('the decoy key appears in no result, log line or state file', () => {
  assert.ok(texts.length >= 10, 'the attempts above ran');
  for (const t of [...texts, ...logs, allText(state)]) assert.ok(!t.includes(DECOY));
});
