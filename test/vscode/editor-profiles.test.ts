// Profiles in the editor (docs/gateway.md "Profiles"), through the editor's test seams: Copy Client Config
// asks which profile when the running gateway's config has some (the default first) and copies that
// profile's entry in each form; VS Code's chat endpoint (host/chatEndpoint.ts) is the profile
// mcpx.chatProfile names — a real gateway over a real upstream, its tools listed over loopback — and it
// says when that changed. Plain Node; the gateways are real, every frame validated (test/harness/wire.ts).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { listen } from '../../src/app/app';
import { parseConfig } from '../../src/config/file';
import { Settings } from '../../src/config/settings';
import { Gateway } from '../../src/gateway/gateway';
import { invoke } from '../../src/vscode/commands/command';
import { COMMANDS } from '../../src/vscode/commands/table';
import { ChatEndpoint } from '../../src/vscode/host/chatEndpoint';
import { Lifetimes } from '../../src/vscode/lifetimes';
import type { GatewayRun } from '../../src/vscode/ports';
import { type TestGateway, fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { fakeDeps } from '../vscode-fakes/editor';
import { fakeBackground, fakeHost, fakeTaskList } from '../vscode-fakes/host';

after(() => killAll());

const run = (id: string, d: Parameters<typeof invoke>[1], ...args: unknown[]) => invoke(COMMANDS[id]!, d, args);

const SERVERS = {
  up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']),
  other: fixtureCommand(['--rev', '2025-11-25', '--name', 'other']),
};
const PROFILES = {
  coder: { servers: { up: { include: ['echo', 'add'] } }, mode: 'passthrough' },
  review: { servers: ['other'], mode: 'aggregated' },
};

describe('Copy Client Config with profiles', () => {
  let gw: TestGateway | undefined;
  after(async () => {
    await gw?.close();
  });

  test('asks which profile, the default first; each form of the entry reaches that profile', async () => {
    gw = await gatewayFor(SERVERS, {}, { profiles: PROFILES });
    const host = () =>
      fakeHost({ gateway: gw!.g, endpoint: gw!.url, bareEndpoint: gw!.bare, secret: gw!.secret, whyStopped: '' });
    const url = fakeDeps({
      host: host(),
      answers: [{ pick: 'Cursor' }, { pick: 'coder' }, { pick: 'secret in its path' }],
    });
    const copied = JSON.parse(String(await run('mcpx.copyClientConfig', url.d))) as Json;
    assert.deepEqual(url.ui.asked[1]!.labels, ['default', 'coder', 'review']);
    const entry = (copied.mcpServers as Json)['mcpx-coder'] as Json;
    assert.equal(entry.url, `${gw.url}/coder`);
    // The copied URL is coder's endpoint: its tools, nothing else.
    const c = new HttpClient(String(entry.url), '2026-07-28');
    const tools = ((await c.request('tools/list')).result!.tools as Json[]).map((t) => t.name);
    assert.deepEqual(tools, ['add', 'echo']);

    const header = fakeDeps({
      host: host(),
      answers: [{ pick: 'Plain URL' }, { pick: 'review' }, { pick: 'Authorization header' }],
    });
    const plain = JSON.parse(String(await run('mcpx.copyClientConfig', header.d))) as Json;
    assert.equal(plain.url, `${gw.bare}/review`);
    const viaHeader = new HttpClient(String(plain.url), '2026-07-28', {
      headers: plain.headers as Record<string, string>,
    });
    const servers = (await viaHeader.request('tools/call', { name: 'mcpx_servers', arguments: {} })).result!;
    assert.deepEqual(
      ((servers.structuredContent as Json).servers as Json[]).map((s) => s.name),
      ['other'],
    );

    const stdio = fakeDeps({ host: host(), answers: [{ pick: 'VS Code' }, { pick: 'review' }, { pick: 'stdio' }] });
    const shim = JSON.parse(String(await run('mcpx.copyClientConfig', stdio.d))) as Json;
    const args = ((shim.servers as Json)['mcpx-review'] as Json).args as string[];
    assert.deepEqual(args.slice(-2), ['--profile', 'review']);

    const byDefault = fakeDeps({ host: host(), answers: [{ pick: 'Cursor' }, { pick: 'default' }, { pick: 'path' }] });
    const plainDefault = JSON.parse(String(await run('mcpx.copyClientConfig', byDefault.d))) as Json;
    assert.deepEqual(plainDefault, { mcpServers: { mcpx: { type: 'http', url: gw.url } } });

    // Dismissed at the profile: nothing copied.
    const dismissed = fakeDeps({ host: host(), answers: [{ pick: 'Cursor' }, { dismiss: true }] });
    assert.equal(await run('mcpx.copyClientConfig', dismissed.d), undefined);
    assert.deepEqual(dismissed.clipboard, []);
  });
});

describe("VS Code's chat endpoint and mcpx.chatProfile", () => {
  test('the chat is offered the profile mcpx.chatProfile names; another name, or none, the default set', async () => {
    const config = parseConfig({ servers: SERVERS, profiles: PROFILES }, 'test', { env: process.env });
    const settings = new Settings([{ source: 'flag', values: { chatProfile: 'coder', 'pool.startTimeout': '5s' } }]);
    const main = new Gateway(config, settings);
    const life = new Lifetimes<GatewayRun>();
    const logged: string[] = [];
    const closers: Array<() => Promise<void>> = [];
    const chat = new ChatEndpoint({
      life,
      log: (l) => logged.push(l),
      inWorkspace: () => false,
      // As the host makes it: the user's servers, the main gateway's profiles read through.
      gateway: (servers, s) =>
        new Gateway(
          {
            servers,
            roots: [],
            settings: {},
            issues: [],
            source: 'mcpx.servers',
            get profiles() {
              return main.config.profiles;
            },
          },
          s,
        ),
      listen: async (g, s) => {
        const l = await listen({ provider: g, settings: s, port: 0, address: '127.0.0.1' });
        closers.push(() => g.close());
        return l;
      },
    });
    life.begin({ gateway: main, tasks: fakeTaskList(), background: fakeBackground() });
    try {
      const endpoint = await chat.endpoint();
      assert.match(String(endpoint), /\/mcp\/[^/]+\/coder$/);
      const tools = await new HttpClient(String(endpoint), '2026-07-28').request('tools/list');
      assert.deepEqual(
        (tools.result!.tools as Json[]).map((t) => t.name),
        ['add', 'echo'],
      );
      assert.equal(chat.stale, false);
      // The setting changed (a reload adopts it): stale until VS Code asks again.
      settings.adopt(new Settings([{ source: 'flag', values: { chatProfile: 'nobody' } }]), []);
      assert.equal(chat.stale, true);
      const plain = await chat.endpoint();
      assert.match(String(plain), /\/mcp\/[^/]+$/);
      assert.match(logged.join('\n'), /mcpx\.chatProfile names "nobody", which is no configured profile/);
      assert.equal(chat.stale, false);
      const all = await new HttpClient(String(plain), '2026-07-28').request('tools/list');
      assert.ok(
        (all.result!.tools as Json[]).some((t) => t.name === 'mcpx_call'),
        'the default set: gateway mode',
      );
    } finally {
      await life.end();
      for (const c of closers) await c();
      await main.close();
    }
  });
});
