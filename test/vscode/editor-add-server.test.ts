// Add Server… (src/vscode/commands/addServer.ts) in plain Node with the hand-written ports of
// test/vscode-fakes/: a stdio command, a URL, a name taken, where it is saved — what the person sees, what
// is written, and what reaches the gateway.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { killAll } from '../harness/upstreams';
import { COMMANDS } from '../../src/vscode/commands/table';
import { invoke } from '../../src/vscode/commands/command';
import { EDITOR_IDENTITY } from '../../src/vscode/editorCall';
import { fakeDeps, fakeMcpJson } from '../vscode-fakes/editor';
import { FakeGateway, fakeHost } from '../vscode-fakes/host';
import { until } from '../harness/wait';

after(() => killAll());

const run = (id: string, d: Parameters<typeof invoke>[1], ...args: unknown[]) => invoke(COMMANDS[id]!, d, args);

describe('Add Server…', () => {
  test('a stdio command saved in the workspace: its name suggested from the program, the file written, the server started once the gateway has it', async () => {
    const g = new FakeGateway({
      servers: [status('up')],
      lists: { 'my-server': { tools: [{ name: 'echo' }, { name: 'add' }] } },
    });
    const host = fakeHost({ gateway: g });
    const file = fakeMcpJson(JSON.stringify({ servers: { up: { type: 'stdio', command: 'up' } } }), () => {
      // The host reloads on the change: the new gateway has the server.
      g.o.servers = [status('up'), status('my-server')];
      host.changed();
    });
    const { d, ui, executed } = fakeDeps({
      host,
      parts: { mcpJson: () => file },
      answers: [
        { pick: 'Command (stdio)' },
        { input: '"/usr/local/bin/my-server.js" --port 7 "two words"' },
        { accept: true },
        { pick: 'No credential' },
        { pick: 'In a sandbox' },
        { pick: 'This workspace' },
      ],
    });
    assert.deepEqual(await run('mcpx.addServer', d), ['my-server']);
    assert.deepEqual(
      ui.asked.map((a) => a.title),
      [
        'mcpx: add a server (1/4): how is it reached?',
        'mcpx: add a server (2/4): the command line',
        'mcpx: add a server (3/4): its name',
        'mcpx: add a server: does my-server need a credential?',
        'mcpx: add a server: run my-server in a sandbox?',
        'mcpx: add a server (4/4): where to save my-server?',
      ],
    );
    assert.equal(ui.asked[2]!.value, 'my-server', 'suggested from the program');
    assert.deepEqual(JSON.parse(file.text!), {
      servers: {
        up: { type: 'stdio', command: 'up' },
        'my-server': {
          type: 'stdio',
          command: '/usr/local/bin/my-server.js',
          args: ['--port', '7', 'two words'],
          sandbox: true,
        },
      },
    });
    assert.deepEqual(executed, [['mcpx.upstreams.focus']], 'the Upstreams view brought forward');
    assert.deepEqual(g.calls.slice(0, 2), [
      ['restartServer', 'my-server', EDITOR_IDENTITY],
      ['serverList', 'my-server', 'tools', EDITOR_IDENTITY],
    ]);
    assert.deepEqual(ui.said('info'), ['mcpx: my-server is running with 2 tool(s).']);
  });

  test('the name offered is free, and a taken or malformed one is refused in the box', async () => {
    const g = new FakeGateway({ servers: [status('node'), status('node-2')], lists: { x: { tools: [] } } });
    const host = fakeHost({ gateway: g });
    const file = fakeMcpJson(undefined, () => {
      g.o.servers = [...g.servers(), status('x')];
      host.changed();
    });
    const { d, ui } = fakeDeps({
      host,
      parts: { mcpJson: () => file },
      answers: [
        { pick: 'Command (stdio)' },
        { input: 'node server.js' },
        { input: 'node' },
        { input: 'a b' },
        { input: 'x' },
        { pick: 'No credential' },
        { pick: 'Without a sandbox' },
        { pick: 'This workspace' },
      ],
    });
    assert.deepEqual(await run('mcpx.addServer', d), ['x']);
    const name = ui.asked.filter((a) => a.title === 'mcpx: add a server (3/4): its name');
    assert.equal(name[0]!.value, 'node-3');
    assert.deepEqual(
      name.map((a) => a.refused),
      ['node is already a server of this gateway', 'letters, digits, _ . -', undefined],
    );
    assert.deepEqual(JSON.parse(file.text!), {
      servers: { x: { type: 'stdio', command: 'node', args: ['server.js'] } },
    });
    assert.deepEqual(ui.said('info'), ['mcpx: x is running with 0 tool(s).']);
    assert.deepEqual(g.calls.slice(0, 1), [['restartServer', 'x', EDITOR_IDENTITY]]);
  });

  test('a URL with a secret saved in the user settings: the token in SecretStorage, the definition refers to it, the server started', async () => {
    const g = new FakeGateway({ servers: [status('up')], lists: { example: { tools: [{ name: 'search' }] } } });
    const host = fakeHost({ gateway: g });
    const { d, ui, settings } = fakeDeps({
      host,
      settings: { mcpx: { servers: { up: { type: 'stdio', command: 'up' } } } },
      answers: [
        { pick: 'URL (HTTP)' },
        { input: 'ftp://mcp.example.com' },
        { input: 'https://mcp.example.com/mcp' },
        { accept: true },
        { pick: 'A secret, kept in SecretStorage' },
        { input: 'tok3n' },
        { pick: 'User settings' },
      ],
    });
    const adding = run('mcpx.addServer', d);
    await until(() => settings.writes.length === 1);
    g.o.servers = [status('up'), status('example')];
    host.changed();
    assert.deepEqual(await adding, ['example']);
    assert.equal(ui.asked[1]!.refused, 'an http or https URL');
    assert.equal(
      ui.asked.find((a) => a.title?.endsWith('its name'))!.value,
      'example',
      "the host's first meaningful label",
    );
    assert.deepEqual(
      ui.asked.find((a) => a.title?.startsWith('mcpx: add a server (4/4)'))!.labels,
      ['$(account) User settings'],
      'no workspace folder: only the user settings',
    );
    assert.deepEqual(host.stored, { 'example-token': 'tok3n' });
    assert.deepEqual(settings.writes, [
      {
        section: 'mcpx',
        key: 'servers',
        value: {
          up: { type: 'stdio', command: 'up' },
          example: {
            type: 'http',
            url: 'https://mcp.example.com/mcp',
            headers: { Authorization: `Bearer \${secret:example-token}` },
          },
        },
        target: 1,
      },
    ]);
    assert.deepEqual(ui.said('info'), ['mcpx: example is running with 1 tool(s).']);
  });

  test("a stdio command's secret goes to the environment variable the person names; a workspace file that is not JSON is left alone", async () => {
    const g = new FakeGateway();
    const host = fakeHost({ gateway: g });
    const file = fakeMcpJson('// a comment\n{ "servers": {} }');
    const { d, ui } = fakeDeps({
      host,
      parts: { mcpJson: () => file },
      answers: [
        { pick: 'Command (stdio)' },
        { input: 'srv' },
        { accept: true },
        { pick: 'A secret' },
        { input: 'API_KEY' },
        { input: 'v4lue' },
        { pick: 'Without a sandbox' },
        { pick: 'This workspace' },
      ],
    });
    assert.equal(await run('mcpx.addServer', d), undefined);
    assert.deepEqual(host.stored, { 'srv-token': 'v4lue' });
    assert.equal(file.text, '// a comment\n{ "servers": {} }', 'not rewritten');
    assert.match(
      ui.said('error')[0]!,
      /^mcpx: \/ws\/\.vscode\/mcp\.json is not plain JSON \(.*\); add srv there by hand/,
    );
  });

  test("VS Code's own servers (mcp.servers) not in mcpx are imported in one step", async () => {
    const g = new FakeGateway({ servers: [status('up')], lists: { theirs: { tools: [] } } });
    const host = fakeHost({ gateway: g });
    const { d, ui, settings } = fakeDeps({
      host,
      settings: {
        mcp: { servers: { up: { command: 'x' }, theirs: { type: 'stdio', command: 'node', args: ['t.js'] } } },
      },
      answers: [{ pick: "Import VS Code's servers" }, { pickDefault: true }],
    });
    const adding = run('mcpx.addServer', d);
    await until(() => settings.writes.length === 1);
    g.o.servers = [status('up'), status('theirs')];
    host.changed();
    assert.deepEqual(await adding, ['theirs']);
    assert.deepEqual(ui.asked[0]!.labels!.at(-1), "$(cloud-download) Import VS Code's servers");
    assert.deepEqual(ui.asked[1]!.labels, ['theirs'], 'only what mcpx does not have');
    assert.deepEqual(settings.writes[0]!.value, { theirs: { type: 'stdio', command: 'node', args: ['t.js'] } });
  });
});

const status = (name: string) => ({ name, scope: 'shared', state: 'stopped' as const, transport: 'stdio' });
