// Reaching the gateway from outside the editor: the 'mcpx' launcher installed and removed, a client's config
// copied in each host's format.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as vscode from 'vscode';
import { answerOf, drive, type Json, newId, pageTest, test } from './harness';
import { until } from '../harness/wait';

/** The `mcpx` launcher goes to MCPX_INSTALL_DIR while `fn` runs (a fresh folder, not yet made), never to
 *  the real ~/.local/bin. */
async function withInstallDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const root = mkdtempSync(join(tmpdir(), 'mcpx-bin-'));
  const before = process.env.MCPX_INSTALL_DIR;
  process.env.MCPX_INSTALL_DIR = join(root, 'bin');
  try {
    return await fn(join(root, 'bin'));
  } finally {
    if (before === undefined) delete process.env.MCPX_INSTALL_DIR;
    else process.env.MCPX_INSTALL_DIR = before;
    rmSync(root, { recursive: true, force: true });
  }
}

export const installCli = test(
  "mcpx: Install 'mcpx' Command writes a launcher that runs the extension's CLI with the host's own runtime; Uninstall removes only ours; a foreign file is not replaced without consent",
  async () => {
    await withInstallDir(async (dir) => {
      const file = await vscode.commands.executeCommand<string | undefined>('mcpx.installCli');
      assert.equal(file, join(dir, 'mcpx'), 'written where MCPX_INSTALL_DIR says, the folder made');
      assert.ok(statSync(file).mode & 0o100, 'executable');
      const text = readFileSync(file, 'utf8');
      assert.match(text, /^#!\/bin\/sh\n/);
      assert.ok(text.includes(`'${process.execPath}'`), "the extension host's runtime");
      assert.ok(text.includes('/dist/cli.js'), text);
      // Run as a terminal would: no ELECTRON_RUN_AS_NODE of ours in its environment, the launcher sets it.
      const env: NodeJS.ProcessEnv = { ...process.env, MCPX_CODE_CACHE: '0' };
      delete env.ELECTRON_RUN_AS_NODE;
      const help = await promisify(execFile)(file, ['--help'], { env, encoding: 'utf8' });
      assert.match(help.stdout, /^usage:\n[\s\S]*\bmcpx serve\b/);
      const settings = await promisify(execFile)(file, ['settings'], { env, encoding: 'utf8' });
      assert.match(settings.stdout, /transport\.secret/);

      assert.equal(await vscode.commands.executeCommand('mcpx.uninstallCli'), true);
      assert.ok(!existsSync(file), 'removed');
      assert.equal(await vscode.commands.executeCommand('mcpx.uninstallCli'), false, 'nothing left to remove');

      // Not ours: it asks first, in a modal dialog. The workbench refuses modal dialogs while extension tests
      // run (as if the person said no), which is the case this checks: no consent, nothing replaced.
      writeFileSync(file, '#!/bin/sh\necho someone else\n', { mode: 0o755 });
      assert.equal(await vscode.commands.executeCommand('mcpx.installCli'), undefined);
      assert.equal(readFileSync(file, 'utf8'), '#!/bin/sh\necho someone else\n');
      assert.equal(await vscode.commands.executeCommand('mcpx.uninstallCli'), false);
      assert.ok(existsSync(file), 'a file not ours is never removed');
    });
  },
  { smoke: true },
);

export const copyClientConfig = pageTest(
  'mcpx: Copy Client Config: VS Code, Cursor and a plain URL; the stdio shim (the launcher when installed) and Streamable HTTP with the secret; the JSON is on the clipboard',
  async (x) => {
    const endpoint = await until(() => x.endpoint(), { what: 'the endpoint', every: 100 });
    const secret = x.host.secret!;
    assert.ok(secret && endpoint.endsWith(`/${secret}`), 'the secret is in the endpoint');
    const copy = async (format: string, form: string): Promise<Json> => {
      const done = vscode.commands.executeCommand<string | undefined>('mcpx.copyClientConfig');
      // Typed into the filter and accepted with Enter: a click on the second list can land on the hover a
      // first-list row left under the pointer.
      drive({ fill: format }, { fill: form });
      const text = await done;
      assert.ok(text, `${format} · ${form}: copied`);
      assert.equal(await vscode.env.clipboard.readText(), text, 'the clipboard holds what the command copied');
      return JSON.parse(text) as Json;
    };
    const STDIO = 'stdio';
    const IN_PATH = 'secret in its path';
    const HEADER = 'Authorization header';
    const shim = ['serve', '--transport', 'stdio'];

    // Installed, the stdio form names the launcher by its full path.
    await withInstallDir(async (dir) => {
      await vscode.commands.executeCommand('mcpx.installCli');
      assert.deepEqual(await copy('VS Code', STDIO), {
        servers: { mcpx: { type: 'stdio', command: join(dir, 'mcpx'), args: shim } },
      });
    });
    assert.deepEqual(await copy('VS Code', IN_PATH), { servers: { mcpx: { type: 'http', url: endpoint } } });
    // Not installed (and no mcpx on this PATH): the bundle under a Node.
    const cursor = (await copy('Cursor', STDIO)).mcpServers as Record<string, { command: string; args: string[] }>;
    assert.deepEqual(Object.keys(cursor), ['mcpx']);
    assert.ok(cursor.mcpx!.command === 'node' || cursor.mcpx!.command === 'mcpx', cursor.mcpx!.command);
    if (cursor.mcpx!.command === 'node') {
      assert.match(cursor.mcpx!.args[0]!, /[\\/]dist[\\/]cli\.js$/);
      assert.deepEqual(cursor.mcpx!.args.slice(1), shim);
    }
    const header = {
      type: 'http',
      url: x.host.bareEndpoint,
      headers: { Authorization: `Bearer ${secret}` },
    };
    assert.deepEqual(await copy('Cursor', HEADER), { mcpServers: { mcpx: header } });
    const plain = await copy('Plain URL', HEADER);
    assert.deepEqual(plain, { url: x.host.bareEndpoint, headers: { Authorization: `Bearer ${secret}` } });
    // The header form works: the bare URL with the Authorization header is served.
    const res = await fetch(String(plain.url), {
      method: 'POST',
      headers: {
        ...(plain.headers as Record<string, string>),
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2026-07-28',
        'Mcp-Method': 'server/discover',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: newId(),
        method: 'server/discover',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
            'io.modelcontextprotocol/clientInfo': { name: 'test-agent', version: '1.0.0' },
          },
        },
      }),
    });
    assert.ok(Array.isArray((await answerOf(res)).supportedVersions));
  },
);
