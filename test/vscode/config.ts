// Configuration: the roots are the workspace folders; a change applies in place; a bad entry is a
// diagnostic; VS Code's chat is offered only the servers it does not run; a credential from SecretStorage.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { call, drive, type Json, mcp, pageTest, RECORD, recorded, test, textOf, WORKSPACE } from './harness';
import { until } from '../harness/wait';

export const roots =
  test('roots are the workspace folders; a folder added reaches the legacy upstream as list_changed', async (x) => {
    const url = x.endpoint()!;
    const first = JSON.parse(textOf(await call(url, 'roots'))) as { roots: Array<{ uri: string }> };
    assert.deepEqual(
      first.roots.map((r) => r.uri),
      vscode.workspace.workspaceFolders!.map((f) => f.uri.toString()),
    );
    const extra = vscode.Uri.file(join(WORKSPACE(), '..', 'second'));
    await vscode.workspace.fs.createDirectory(extra);
    assert.ok(
      vscode.workspace.updateWorkspaceFolders(vscode.workspace.workspaceFolders!.length, 0, {
        uri: extra,
        name: 'second',
      }),
    );
    await until(() => recorded().some((f) => f.method === 'notifications/roots/list_changed'), {
      what: 'notifications/roots/list_changed upstream',
      every: 100,
    });
    const second = JSON.parse(textOf(await call(url, 'roots'))) as { roots: Array<{ uri: string }> };
    assert.equal(second.roots.length, first.roots.length + 1);
    assert.ok(second.roots.some((r) => r.uri === extra.toString()));
  });

export const configChanges =
  test("config changes apply without a restart; a bad entry is a diagnostic naming its path; VS Code's chat is offered only servers it does not run itself", async (x) => {
    const token = new vscode.CancellationTokenSource().token;
    assert.deepEqual(
      await x.mcpDefinitions.provideMcpServerDefinitions(token),
      [],
      'VS Code runs the workspace file itself: nothing offered twice',
    );
    const file = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, '.vscode', 'mcp.json');
    const original = JSON.parse(readFileSync(file.fsPath, 'utf8')) as { servers: Record<string, Json> };
    const up = original.servers.up!;
    // Applied in place (src/vscode/host/applyChange.ts): the run, and so the listener, its sessions and
    // the endpoint, outlive every change below.
    const life = x.life as unknown as { run?: object };
    const run = life.run;
    const endpoint = x.endpoint();
    await vscode.workspace.getConfiguration('mcpx').update(
      'servers',
      {
        mine: {
          ...up,
          args: (up.args as string[]).map((a) => (a === 'up' ? 'mine' : a === RECORD() ? `${RECORD()}.mine` : a)),
        },
      },
      vscode.ConfigurationTarget.Global,
    );
    await until(
      () =>
        x.host.gateway?.servers().some((s) => s.name === 'mine') &&
        x.host.gateway.servers().some((s) => s.name === 'up'),
      { what: 'the user server loaded', every: 100 },
    );
    assert.equal(life.run, run, 'a server added in place: the same run, no restart');
    assert.equal(x.endpoint(), endpoint);
    const defs = (await x.mcpDefinitions.provideMcpServerDefinitions(token)) as vscode.McpHttpServerDefinition[];
    assert.equal(defs.length, 1);
    const listed = (
      JSON.parse(textOf(await mcp(defs[0]!.uri.toString(), 'tools/call', { name: 'mcpx_servers', arguments: {} }))) as {
        servers: Array<{ name: string }>;
      }
    ).servers;
    assert.deepEqual(
      listed.map((s) => s.name),
      ['mine'],
      "the chat's endpoint has only the server VS Code does not run",
    );
    await vscode.workspace.fs.writeFile(
      file,
      Buffer.from(JSON.stringify({ servers: { ...original.servers, bad: { type: 'stdio', command: 7 } } })),
    );
    const diags = await until(
      () => {
        const d = vscode.languages.getDiagnostics(file);
        return d.length ? d : undefined;
      },
      { what: 'a diagnostic on mcp.json', every: 100 },
    );
    assert.match(diags[0]!.message, /^servers\.bad\.command: /);
    // The diagnostic is published while the new gateway is still being made: wait for it, not a moment.
    await until(() => x.host.gateway?.servers().some((s) => s.name === 'up'), {
      what: 'the rest still loads',
      every: 100,
    });
    await vscode.workspace.fs.writeFile(file, Buffer.from(JSON.stringify(original)));
    await vscode.workspace.getConfiguration('mcpx').update('servers', undefined, vscode.ConfigurationTarget.Global);
    await until(() => x.host.gateway?.servers().length === 1 && vscode.languages.getDiagnostics(file).length === 0, {
      what: 'back to the workspace servers',
      every: 100,
    });
    assert.equal(life.run, run, 'every change applied in place');
  });

export const chatProfile =
  test("mcpx.chatProfile: VS Code's chat registration is that profile's endpoint, listing the profile's tools", async (x) => {
    const token = new vscode.CancellationTokenSource().token;
    const file = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, '.vscode', 'mcp.json');
    const original = JSON.parse(readFileSync(file.fsPath, 'utf8')) as { servers: Record<string, Json> };
    const up = original.servers.up!;
    const mcpx = () => vscode.workspace.getConfiguration('mcpx');
    // A server of the user setting (VS Code does not run it: the chat is offered it), and a profile of
    // the workspace file naming two of its tools.
    await mcpx().update(
      'servers',
      {
        mine: {
          ...up,
          args: (up.args as string[]).map((a) => (a === 'up' ? 'mine' : a === RECORD() ? `${RECORD()}.mine` : a)),
        },
      },
      vscode.ConfigurationTarget.Global,
    );
    await vscode.workspace.fs.writeFile(
      file,
      Buffer.from(
        JSON.stringify({
          ...original,
          profiles: { chatset: { servers: { mine: { include: ['echo', 'add'] } }, mode: 'passthrough' } },
        }),
      ),
    );
    await until(() => x.host.gateway?.config.profiles?.has('chatset'), { what: 'the profile loaded', every: 100 });
    let changed = 0;
    const heard = x.mcpDefinitions.onDidChangeMcpServerDefinitions?.(() => changed++);
    try {
      await mcpx().update('chatProfile', 'chatset', vscode.ConfigurationTarget.Global);
      await until(() => changed > 0 || undefined, { what: 'VS Code told the definitions changed', every: 100 });
      const defs = (await x.mcpDefinitions.provideMcpServerDefinitions(token)) as vscode.McpHttpServerDefinition[];
      assert.equal(defs.length, 1);
      const url = defs[0]!.uri.toString();
      assert.match(url, /\/mcp\/[^/]+\/chatset$/, "the profile's endpoint");
      const tools = ((await mcp(url, 'tools/list')).tools as Json[]).map((t) => t.name);
      assert.deepEqual(tools, ['add', 'echo'], "the profile's tools, and only those");
    } finally {
      heard?.dispose();
      await mcpx().update('chatProfile', undefined, vscode.ConfigurationTarget.Global);
      await vscode.workspace.fs.writeFile(file, Buffer.from(JSON.stringify(original)));
      await mcpx().update('servers', undefined, vscode.ConfigurationTarget.Global);
      await until(() => x.host.gateway?.servers().length === 1 && !x.host.gateway.config.profiles, {
        what: 'back to the workspace servers',
        every: 100,
      });
    }
  });

export const setSecret = pageTest(
  'a credential from SecretStorage (mcpx: Set Secret…) reaches the upstream through ${secret:NAME}, never a setting',
  async (x) => {
    const file = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, '.vscode', 'mcp.json');
    const up = (JSON.parse(readFileSync(file.fsPath, 'utf8')) as { servers: Record<string, Json> }).servers.up!;
    // The fixture exits at start unless TOKEN is exactly the secret.
    const args = [
      ...(up.args as string[]).map((a) => (a === 'up' ? 'vault' : a === RECORD() ? `${RECORD()}.vault` : a)),
      '--require-env',
      'TOKEN=s3cret-value',
    ];
    await vscode.workspace
      .getConfiguration('mcpx')
      .update(
        'servers',
        { vault: { ...up, args, env: { TOKEN: '${secret:vault-token}' } } },
        vscode.ConfigurationTarget.Global,
      );
    await until(() => x.host.gateway?.servers().some((s) => s.name === 'vault'), {
      what: 'the vault server configured',
      every: 100,
    });
    const setting = vscode.commands.executeCommand('mcpx.setSecret');
    drive({ pick: 'vault-token' }, { fill: 's3cret-value' });
    await setting;
    const url = await until(() => x.endpoint(), { what: 'the gateway reloaded', every: 100 });
    const r = await until(
      async () => {
        const res = await mcp(url, 'tools/call', {
          name: 'mcpx_call',
          arguments: { server: 'vault', tool: 'echo', arguments: { text: 'unlocked' } },
        }).catch(() => undefined);
        return res && !res.isError ? res : undefined;
      },
      { what: 'the vault server answering', every: 100 },
    );
    assert.equal(textOf(r), 'unlocked');
    const stored = vscode.workspace.getConfiguration('mcpx').get<Record<string, { env: Json }>>('servers')!;
    assert.equal(stored.vault!.env.TOKEN, '${secret:vault-token}', 'the setting holds the reference, not the value');
    await vscode.workspace.getConfiguration('mcpx').update('servers', undefined, vscode.ConfigurationTarget.Global);
  },
);
