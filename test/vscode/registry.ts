// Add Server… → From the MCP Registry… in a real editor, with a local registry (test/fixtures/registry)
// whose entry is a remote server: the fixture upstream over Streamable HTTP that refuses every request
// without its key. The QuickPick searches as the person types; the key goes into a password box and
// SecretStorage; the server runs with it and its tools show.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import * as vscode from 'vscode';
import { held } from '../fixtures/registry/entries';
import { startRegistry } from '../fixtures/registry/server';
import { drive, fixtureArgs, type Json, pageTest, shotTaken, toolNodes } from './harness';
import { until } from '../harness/wait';

const NAME = 'io.github.mcpx-tests/web-remote';

export const fromRegistry = pageTest(
  'Add Server… → From the MCP Registry…: searched as typed, its secret header in a password box and SecretStorage, the remote server running with it',
  async (x) => {
    const [script, ...rest] = fixtureArgs(
      'web-remote',
      '--transport',
      'http',
      '--require-header',
      'X-Api-Key: r3g-k3y',
    );
    const fx = spawn(process.execPath, [script!, ...rest], { stdio: ['pipe', 'pipe', 'inherit'] });
    const reg = await startRegistry([]);
    const cfg = () => vscode.workspace.getConfiguration('mcpx');
    try {
      const line = await new Promise<string>((r) => createInterface({ input: fx.stdout! }).once('line', r));
      const url = /listening on (\S+)/.exec(line)![1]!;
      reg.entries.push(
        held({
          name: NAME,
          description: 'The fixture upstream, reached over Streamable HTTP with a key',
          version: '1.0.0',
          remotes: [
            {
              type: 'streamable-http',
              url,
              headers: [{ name: 'X-Api-Key', description: 'Your key', isRequired: true, isSecret: true }],
            },
          ],
        }),
      );
      await cfg().update('registry.url', reg.url, vscode.ConfigurationTarget.Global);
      const adding = vscode.commands.executeCommand<string[]>('mcpx.addServer');
      const t0 = Date.now();
      drive(
        { pick: 'From the MCP Registry' },
        { title: 'add a server from the MCP Registry' },
        { search: 'web-remote' },
        { shot: 'registry-search', when: 'quick' },
        { pick: NAME },
        { pick: 'Install' },
        { fill: 'web-remote' },
        { fill: 'r3g-k3y' },
        { pick: 'User settings' },
      );
      assert.deepEqual(await adding, ['web-remote']);
      await shotTaken('registry-search', t0);
      assert.ok(
        reg.requests.some((u) => u.includes('search=web-remote')),
        'searched as typed',
      );
      const stored = cfg().get<Record<string, Json>>('servers')!['web-remote']!;
      assert.deepEqual(stored.headers, { 'X-Api-Key': '${secret:web-remote.X-Api-Key}' });
      assert.deepEqual((stored.registry as Json).name, NAME);
      assert.ok(!JSON.stringify(cfg().inspect('servers')).includes('r3g-k3y'), 'the key is not in the settings');
      await until(() => x.host.gateway?.servers().find((s) => s.name === 'web-remote' && s.state === 'running'), {
        what: 'the server running with its key',
        every: 100,
      });
      assert.ok(
        (await toolNodes(x, 'web-remote')).some((n) => n.item?.name === 'echo'),
        'its tools listed',
      );
    } finally {
      await cfg().update('servers', undefined, vscode.ConfigurationTarget.Global);
      await cfg().update('registry.url', undefined, vscode.ConfigurationTarget.Global);
      fx.stdin!.end();
      fx.kill();
      await reg.close();
      await until(() => (x.host.gateway?.servers().length === 1 ? true : undefined), {
        what: 'back to the workspace servers',
        every: 100,
      });
    }
  },
);
