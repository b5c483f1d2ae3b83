// Add Server…: from the empty Upstreams view's welcome, into the user settings with a secret, VS Code's own
// servers imported, a URL with its bearer token.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import * as vscode from 'vscode';
import { drive, fixtureArgs, fixtureCommandLine, type Json, shotTaken, test, toolNodes } from './harness';
import { until } from '../harness/wait';

export const welcomeAddServer =
  test("Editor polish: every empty view explains itself; the empty Upstreams view's Add Server button adds a server end to end (it starts, its tools show)", async (x) => {
    const pkg = JSON.parse(
      readFileSync(join(vscode.extensions.getExtension('mcpx.mcpx')!.extensionPath, 'package.json'), 'utf8'),
    ) as { contributes: { viewsWelcome: Array<{ view: string; contents: string }> } };
    assert.deepEqual(pkg.contributes.viewsWelcome.map((w) => w.view).sort(), [
      'mcpx.activity',
      'mcpx.questions',
      'mcpx.subscriptions',
      'mcpx.tasks',
      'mcpx.upstreams',
    ]);
    await vscode.commands.executeCommand('notifications.hideList');
    await vscode.commands.executeCommand('mcpx.subscriptions.focus');
    const t0 = Date.now();
    drive({ see: ['.welcome-view-content', 'Resources an agent subscribes to'], shot: 'welcome-subscriptions' });
    await shotTaken('welcome-subscriptions', t0);

    const file = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, '.vscode', 'mcp.json');
    const original = readFileSync(file.fsPath, 'utf8');
    const commandLine = fixtureCommandLine('added');
    try {
      await vscode.workspace.fs.writeFile(file, Buffer.from(JSON.stringify({ servers: {} })));
      await until(() => x.host.gateway?.servers().length === 0, { what: 'no servers', every: 100 });
      await vscode.commands.executeCommand('mcpx.upstreams.focus');
      drive(
        { see: ['.welcome-view-content', 'None is configured yet'], shot: 'welcome-upstreams' },
        { button: ['.welcome-view-content .monaco-button', 'Add Server'] },
        { title: 'how is it reached?' },
        { shot: 'add-server', when: 'quick' },
        { pick: 'Command (stdio)' },
        { fill: commandLine },
        { fill: 'added' },
        { pick: 'No credential' },
        { pick: 'Without a sandbox' },
        { pick: 'This workspace' },
      );
      await until(() => x.host.gateway?.servers().find((s) => s.name === 'added' && s.state === 'running'), {
        what: 'the added server running',
        every: 100,
        timeout: 40_000,
      });
      const tools = await until(
        async () => {
          const t = await toolNodes(x, 'added');
          return t.length ? t : undefined;
        },
        { what: 'its tools in the Upstreams view', every: 100 },
      );
      assert.ok(tools.some((n) => n.item?.name === 'echo'));
      const saved = JSON.parse(readFileSync(file.fsPath, 'utf8')) as { servers: Record<string, Json> };
      assert.equal(saved.servers.added!.type, 'stdio');
      assert.deepEqual((saved.servers.added!.args as string[]).slice(-2), ['--name', 'added']);
      await vscode.commands.executeCommand('notifications.hideList');
      const t1 = Date.now();
      drive({ see: ['.pane-body .monaco-list-row', 'added'] }, { shot: 'add-server-done' });
      await shotTaken('add-server-done', t1);
    } finally {
      await vscode.workspace.fs.writeFile(file, Buffer.from(original));
      await until(
        () =>
          x.host.gateway
            ?.servers()
            .map((s) => s.name)
            .join() === 'up'
            ? true
            : undefined,
        { what: 'back to the workspace servers', every: 100 },
      );
    }
  });

export const addServerSettings =
  test("Editor polish: Add Server… saves into the user settings with its credential in SecretStorage; VS Code's own servers are imported in one step", async (x) => {
    const cfg = () => vscode.workspace.getConfiguration('mcpx');
    try {
      const adding = vscode.commands.executeCommand<string[]>('mcpx.addServer');
      // The fixture exits at start unless TOKEN is exactly the secret.
      drive(
        { pick: 'Command (stdio)' },
        { fill: fixtureCommandLine('withsecret', '--require-env', 'TOKEN=s3cret-added') },
        { fill: 'withsecret' },
        { pick: 'A secret, kept in SecretStorage' },
        { fill: 'TOKEN' },
        { fill: 's3cret-added' },
        { pick: 'Without a sandbox' },
        { pick: 'User settings' },
      );
      assert.deepEqual(await adding, ['withsecret']);
      const stored = cfg().get<Record<string, { env: Json }>>('servers')!;
      assert.equal(stored.withsecret!.env.TOKEN, '${secret:withsecret-token}', 'the setting holds the reference');
      await until(() => x.host.gateway?.servers().find((s) => s.name === 'withsecret' && s.state === 'running'), {
        what: 'the server running with its secret',
        every: 100,
      });

      // VS Code's own definitions (its user setting mcp.servers).
      let wrote = true;
      await vscode.workspace
        .getConfiguration('mcp')
        .update(
          'servers',
          { theirs: { type: 'stdio', command: process.execPath, args: fixtureArgs('theirs') } },
          vscode.ConfigurationTarget.Global,
        )
        .then(undefined, (e: Error) => {
          wrote = false;
          console.log(`mcpx-note: mcp.servers could not be written here (${e.message})`);
        });
      if (wrote) {
        const importing = vscode.commands.executeCommand<string[]>('mcpx.addServer');
        drive({ pick: "Import VS Code's servers" }, { shot: 'add-server-import', when: 'quick' }, { key: 'Enter' });
        assert.deepEqual(await importing, ['theirs']);
        await until(() => x.host.gateway?.servers().find((s) => s.name === 'theirs' && s.state === 'running'), {
          what: 'the imported server running',
          every: 100,
        });
      }
    } finally {
      await cfg().update('servers', undefined, vscode.ConfigurationTarget.Global);
      await vscode.workspace
        .getConfiguration('mcp')
        .update('servers', undefined, vscode.ConfigurationTarget.Global)
        .then(undefined, () => undefined);
      await until(() => (x.host.gateway?.servers().length === 1 ? true : undefined), {
        what: 'back to the workspace servers',
        every: 100,
      });
    }
  });

export const addServerUrl =
  test('Editor polish: Add Server… for a URL: its bearer token kept in SecretStorage reaches the server as a header', async (x) => {
    // The fixture over Streamable HTTP, refusing (401) every request without this header.
    const [script, ...rest] = fixtureArgs(
      'web',
      '--transport',
      'http',
      '--require-header',
      'Authorization: Bearer w3b-token',
    );
    const fx = spawn(process.execPath, [script!, ...rest], { stdio: ['pipe', 'pipe', 'inherit'] });
    const cfg = () => vscode.workspace.getConfiguration('mcpx');
    try {
      const line = await new Promise<string>((r) => createInterface({ input: fx.stdout! }).once('line', r));
      const url = /listening on (\S+)/.exec(line)![1]!;
      const adding = vscode.commands.executeCommand<string[]>('mcpx.addServer');
      drive(
        { pick: 'URL (HTTP)' },
        { fill: url },
        { fill: 'web' },
        { pick: 'A secret, kept in SecretStorage' },
        { fill: 'w3b-token' },
        { pick: 'User settings' },
      );
      assert.deepEqual(await adding, ['web']);
      const stored = cfg().get<Record<string, Json>>('servers')!.web!;
      assert.deepEqual(stored, { type: 'http', url, headers: { Authorization: 'Bearer ${secret:web-token}' } });
      await until(() => x.host.gateway?.servers().find((s) => s.name === 'web' && s.state === 'running'), {
        what: 'the server running with its token',
        every: 100,
      });
      assert.ok(
        (await toolNodes(x, 'web')).some((n) => n.item?.name === 'echo'),
        'its tools listed',
      );
    } finally {
      await cfg().update('servers', undefined, vscode.ConfigurationTarget.Global);
      fx.stdin!.end();
      fx.kill();
      await until(() => (x.host.gateway?.servers().length === 1 ? true : undefined), {
        what: 'back to the workspace servers',
        every: 100,
      });
    }
  });
