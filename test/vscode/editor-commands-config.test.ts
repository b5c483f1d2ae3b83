// The editor's configuration commands (src/vscode/commands/) in plain Node with the hand-written ports of
// test/vscode-fakes/: Copy Client Config, Set Secret…, Sign In and Sign Out, Answer Question… — what the
// person sees, the clipboard, the settings and SecretStorage.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { killAll } from '../harness/upstreams';
import { COMMANDS } from '../../src/vscode/commands/table';
import { invoke } from '../../src/vscode/commands/command';
import { EDITOR_IDENTITY } from '../../src/vscode/editorCall';
import { fakeDeps, fakePerson } from '../vscode-fakes/editor';
import { FakeGateway, fakeHost } from '../vscode-fakes/host';

after(() => killAll());

const run = (id: string, d: Parameters<typeof invoke>[1], ...args: unknown[]) => invoke(COMMANDS[id]!, d, args);

const status = (name: string) => ({ name, scope: 'shared', state: 'stopped' as const, transport: 'stdio' });

describe('Copy Client Config', () => {
  const host = () =>
    fakeHost({
      endpoint: 'http://127.0.0.1:8899/mcp/s3cret',
      bareEndpoint: 'http://127.0.0.1:8899/mcp',
      secret: 's3cret',
    });

  test("VS Code's stdio entry names the installed launcher; Cursor's HTTP entry has the secret in its path", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-launcher-'));
    const before = process.env.MCPX_INSTALL_DIR;
    process.env.MCPX_INSTALL_DIR = dir;
    try {
      // A launcher of ours there (what Install 'mcpx' Command writes).
      writeFileSync(
        join(dir, 'mcpx'),
        '#!/bin/sh\n# mcpx-launcher: written by the mcpx VS Code extension; "mcpx: Uninstall \'mcpx\' Command" removes it\n',
      );
      const vs = fakeDeps({ host: host(), answers: [{ pick: 'VS Code' }, { pick: 'stdio' }] });
      const text = await run('mcpx.copyClientConfig', vs.d);
      assert.deepEqual(JSON.parse(String(text)), {
        servers: { mcpx: { type: 'stdio', command: join(dir, 'mcpx'), args: ['serve', '--transport', 'stdio'] } },
      });
      assert.deepEqual(vs.clipboard, [text]);
      assert.deepEqual(vs.ui.said('info'), ['mcpx: copied a "servers" entry for VS Code (stdio).']);
      assert.deepEqual(
        vs.ui.asked.map((a) => a.labels),
        [
          ['VS Code', 'Claude Desktop / Claude Code', 'Cursor', 'Plain URL'],
          [
            '$(terminal) stdio: the mcpx command',
            '$(globe) Streamable HTTP: the URL with the secret in its path',
            '$(key) Streamable HTTP: the URL and an Authorization header',
          ],
        ],
      );
    } finally {
      if (before === undefined) delete process.env.MCPX_INSTALL_DIR;
      else process.env.MCPX_INSTALL_DIR = before;
      rmSync(dir, { recursive: true, force: true });
    }
    const cursor = fakeDeps({ host: host(), answers: [{ pick: 'Cursor' }, { pick: 'secret in its path' }] });
    assert.deepEqual(JSON.parse(String(await run('mcpx.copyClientConfig', cursor.d))), {
      mcpServers: { mcpx: { type: 'http', url: 'http://127.0.0.1:8899/mcp/s3cret' } },
    });
    assert.deepEqual(cursor.ui.said('info'), [
      'mcpx: copied a "mcpServers" entry for Cursor (Streamable HTTP). It contains the endpoint secret: treat it like a password.',
    ]);
  });

  test('a plain URL with its Authorization header; with the gateway stopped only the stdio form is offered, and a plain URL has none', async () => {
    const plain = fakeDeps({ host: host(), answers: [{ pick: 'Plain URL' }, { pick: 'Authorization header' }] });
    assert.deepEqual(JSON.parse(String(await run('mcpx.copyClientConfig', plain.d))), {
      url: 'http://127.0.0.1:8899/mcp',
      headers: { Authorization: 'Bearer s3cret' },
    });
    assert.deepEqual(plain.ui.said('info'), [
      'mcpx: copied the endpoint (Streamable HTTP). It contains the endpoint secret: treat it like a password.',
    ]);
    const stopped = fakeDeps({
      host: fakeHost({ whyStopped: 'it was stopped' }),
      answers: [{ pick: 'Claude' }, { pick: 'stdio' }],
    });
    await run('mcpx.copyClientConfig', stopped.d);
    assert.deepEqual(stopped.ui.asked[1]!.labels, ['$(terminal) stdio: the mcpx command']);
    assert.equal(stopped.ui.asked[1]!.placeHolder, 'the HTTP forms need the gateway running (it was stopped)');
    const none = fakeDeps({ host: fakeHost({ whyStopped: 'it was stopped' }), answers: [{ pick: 'Plain URL' }] });
    assert.equal(await run('mcpx.copyClientConfig', none.d), undefined);
    assert.deepEqual(none.ui.said('warning'), [
      'mcpx: the gateway is not running (it was stopped), so there is no endpoint to copy.',
    ]);
    assert.deepEqual(none.clipboard, []);
  });
});

describe('Set Secret…', () => {
  test('a name the definitions refer to, or another (validated); the value stored in SecretStorage, never elsewhere', async () => {
    const host = fakeHost({ referencedSecrets: () => ['vault-token'] });
    const named = fakeDeps({ host, answers: [{ pick: 'vault-token' }, { input: 's3cret' }] });
    await run('mcpx.setSecret', named.d);
    assert.deepEqual(named.ui.asked[0]!.labels, ['vault-token', '$(add) Another name…']);
    assert.deepEqual(host.stored, { 'vault-token': 's3cret' });
    assert.deepEqual(named.ui.said('info'), ['mcpx: stored vault-token; servers referring to it are reloaded.']);
    assert.deepEqual(named.settings.writes, [], 'no setting written');

    const other = fakeDeps({
      host,
      answers: [{ pick: 'Another name' }, { input: 'not a name' }, { input: 'api.key' }, { input: 'v' }],
    });
    await run('mcpx.setSecret', other.d);
    assert.deepEqual(
      other.ui.asked.map((a) => [a.title, a.refused]),
      [
        ['mcpx: store a credential in SecretStorage', undefined],
        ['mcpx: secret name', 'letters, digits, _ . -'],
        ['mcpx: secret name', undefined],
        ['mcpx: value of api.key', undefined],
      ],
    );
    assert.deepEqual(host.stored, { 'vault-token': 's3cret', 'api.key': 'v' });
    const escaped = fakeDeps({ host, answers: [{ pick: 'vault-token' }, { dismiss: true }] });
    await run('mcpx.setSecret', escaped.d);
    assert.equal(host.stored['vault-token'], 's3cret', 'Escape stores nothing');
  });
});

describe('Sign In and Sign Out, Answer Question…', () => {
  test('Sign In approves the server (no second question) and signs in under the editor identity; Sign Out says whether the tokens were revoked', async () => {
    const g = new FakeGateway({ servers: [status('secure')] });
    const { d, ui, approved } = fakeDeps({ host: fakeHost({ gateway: g }) });
    await run('mcpx.signIn', d, { name: 'secure' });
    assert.deepEqual(approved, ['secure']);
    assert.deepEqual(g.calls, [['signIn', 'secure', EDITOR_IDENTITY]]);
    assert.deepEqual(
      ui.progress.map((p) => p.title),
      ['mcpx: signing in to secure in the browser…'],
    );
    assert.deepEqual(ui.said('info'), ['mcpx: signed in to secure.']);
    await run('mcpx.signOut', d, 'secure');
    assert.equal(ui.said('info')[1], 'mcpx: signed out of secure; its tokens were revoked.');
  });

  test('a question waiting is put to the person and the answer goes to the broker; one the editor cannot answer says so', async () => {
    const q = (id: string, method: string) => ({
      id,
      server: 'up',
      method,
      params: { message: `Q ${id}?`, requestedSchema: { type: 'object', properties: {} } },
      createdAt: Date.now(),
      deadline: Date.now() + 60_000,
      reason: 'dismissed in the editor',
    });
    const g = new FakeGateway({ questions: [q('q1', 'elicitation/create'), q('q2', 'roots/list')] });
    const { person, questions } = fakePerson([{ action: 'accept', content: {} }]);
    const { d, ui } = fakeDeps({ host: fakeHost({ gateway: g }), parts: { person }, answers: [{ pick: 'Q q2' }] });
    await run('mcpx.answerQuestion', d, 'q1');
    assert.deepEqual(
      questions.map((x) => x.params.message),
      ['Q q1?'],
    );
    assert.deepEqual(g.answers, [['q1', { action: 'accept', content: {} }]]);
    await run('mcpx.answerQuestion', d);
    assert.deepEqual(ui.asked[0]!.labels, ['up: Q q1?', 'up: Q q2?']);
    assert.deepEqual(ui.said('warning'), [
      'mcpx: this question (roots/list) cannot be answered in the editor yet; use `mcpx elicit`.',
    ]);
  });
});
