// Artifacts (docs/gateway.md "Artifacts") on real gateways over fixture upstreams (stdio) and real
// loopback HTTP, every frame validated by the harness clients: with results.artifactOver set, the
// fixture's 1,000,000-character result reaches the client as a preview and a resource_link — through a
// pass-through tool, mcpx_call and an mcpx_exec script — and the artifact is read whole, and listed, by
// that client's identity alone (another gets the era's resource-not-found error), in both eras (cacheScope
// private on 2026-07-28); a small result is untouched; results.artifactBytes evicts the identity's own
// oldest and never another's (that result goes whole instead); proto.askTTL expires them.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type TestGateway, fixtureCommand, gatewayFor } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { until } from '../harness/wait';

const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';
const OVER = 100_000;

const servers = {
  up: fixtureCommand(['--rev', LEGACY, '--name', 'up']),
  pt: fixtureCommand(['--rev', LEGACY, '--name', 'pt']),
};

interface Link {
  uri: string;
  size: number;
}

/** The artifact link of a shrunk result, and its preview text. */
function linkOf(result: Json | undefined): { link: Link; preview: string } {
  const content = (result?.content ?? []) as Json[];
  const link = content.find((c) => c.type === 'resource_link') as unknown as Link | undefined;
  assert.ok(link, `a resource_link in ${JSON.stringify(result).slice(0, 300)}`);
  assert.match(link.uri, /^mcpx:\/\/artifacts\/[0-9a-f-]{36}$/);
  return { link, preview: String((content[0] as Json).text) };
}

/** The whole result an artifact holds, read by `c`. */
async function readWhole(c: HttpClient, uri: string, meta: Json = {}): Promise<Json> {
  const r = await c.request('resources/read', { uri }, { meta });
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  const contents = (r.result!.contents as Json[])[0]!;
  assert.equal(contents.uri, uri);
  assert.equal(contents.mimeType, 'application/json');
  return JSON.parse(String(contents.text)) as Json;
}

const firstText = (result: Json) => String(((result.content as Json[])[0] as Json).text);

describe('results.artifactOver', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await gatewayFor(servers, { 'results.artifactOver': OVER, 'mcp.passthrough': ['pt'] });
  });
  after(() => gw?.close());

  test('a pass-through result past it: a preview and a link; the artifact read whole and listed by its client only', async () => {
    const a = new HttpClient(gw.url, LEGACY);
    await a.initialize();
    const b = new HttpClient(gw.url, LEGACY);
    await b.initialize();
    const big = await a.request('tools/call', { name: 'big', arguments: {} });
    const { link, preview } = linkOf(big.result);
    assert.ok(preview.length < 2000, 'a short preview');
    assert.ok(preview.startsWith('x'.repeat(1000)), 'the start of the text');
    assert.ok(big.reply.text.length < 5000, `the client received ${big.reply.text.length} bytes`);
    assert.ok(link.size > 1_000_000);
    const whole = await readWhole(a, link.uri);
    assert.equal(firstText(whole).length, 1_000_000);
    const listed = (await a.request('resources/list')).result!.resources as Json[];
    assert.ok(listed.some((r) => r.uri === link.uri && r.size === link.size));
    // Another client: as if it never existed.
    const other = await b.request('resources/read', { uri: link.uri });
    assert.equal(other.error?.code, -32002);
    assert.match(other.error!.message, /not found/i);
    const theirs = (await b.request('resources/list')).result!.resources as Json[];
    assert.equal(theirs.filter((r) => String(r.uri).startsWith('mcpx://artifacts/')).length, 0);
  });

  test('2024-11-05 and 2025-03-26: the link is a text block naming the URI, which reads back whole', async () => {
    for (const rev of ['2024-11-05', '2025-03-26'] as const) {
      const c = new HttpClient(gw.url, rev);
      await c.initialize();
      const big = await c.request('tools/call', { name: 'big', arguments: {} });
      const content = big.result!.content as Json[];
      assert.equal(content.length, 2, rev);
      assert.ok(
        content.every((b) => b.type === 'text'),
        rev,
      );
      const uri = /mcpx:\/\/artifacts\/[0-9a-f-]{36}/.exec(String(content[1]!.text))![0];
      assert.match(String(content[1]!.text), /^Resource link: /);
      assert.equal(firstText(await readWhole(c, uri)).length, 1_000_000, rev);
      const listed = (await c.request('resources/list')).result!.resources as Json[];
      assert.ok(
        listed.some((r) => r.uri === uri),
        rev,
      );
    }
  });

  test('a small result is untouched', async () => {
    const a = new HttpClient(gw.url, LEGACY);
    await a.initialize();
    const r = await a.request('tools/call', { name: 'echo', arguments: { text: 'small' } });
    assert.deepEqual(r.result!.content, [{ type: 'text', text: 'small' }]);
    assert.equal((r.result!._meta as Json | undefined)?.['dev.mcpx/artifact'], undefined);
  });

  test('mcpx_exec output past it: structuredContent names the artifact, which holds the whole output', async () => {
    const a = new HttpClient(gw.url, LEGACY);
    await a.initialize();
    const r = await a.request('tools/call', {
      name: 'mcpx_exec',
      arguments: { script: "console.log('one log line'); return 'y'.repeat(200000);" },
    });
    const { link } = linkOf(r.result);
    const sc = r.result!.structuredContent as { result: Json; logs: unknown[] };
    assert.equal(sc.result.artifact, link.uri);
    assert.deepEqual(sc.logs, []);
    const whole = await readWhole(a, link.uri);
    const out = whole.structuredContent as { result: string; logs: string[] };
    assert.equal(out.result.length, 200_000);
    assert.deepEqual(out.logs, ['one log line']);
  });

  test('2026-07-28, a named identity: mcpx_call past it, listed privately, read by that identity alone', async () => {
    const c = new HttpClient(gw.url, MODERN);
    const me = { 'dev.mcpx/session': randomUUID() };
    const r = await c.request(
      'tools/call',
      { name: 'mcpx_call', arguments: { server: 'up', tool: 'big', arguments: {} } },
      { meta: me },
    );
    const { link } = linkOf(r.result);
    const list = (await c.request('resources/list', {}, { meta: me })).result!;
    assert.equal(list.cacheScope, 'private');
    assert.ok((list.resources as Json[]).some((x) => x.uri === link.uri));
    assert.equal(firstText(await readWhole(c, link.uri, me)).length, 1_000_000);
    const stranger = await c.request(
      'resources/read',
      { uri: link.uri },
      { meta: { 'dev.mcpx/session': randomUUID() } },
    );
    assert.equal(stranger.error?.code, -32602);
  });

  test('2026-07-28 without an identity: the result goes whole (the request alone could not come back for it)', async () => {
    const c = new HttpClient(gw.url, MODERN);
    const r = await c.request('tools/call', {
      name: 'mcpx_call',
      arguments: { server: 'up', tool: 'big', arguments: {} },
    });
    assert.equal(firstText(r.result!).length, 1_000_000);
  });
});

describe('results.artifactBytes and proto.askTTL', () => {
  test("a new artifact evicts its identity's oldest, never another's: that result goes whole", async () => {
    const gw = await gatewayFor(servers, {
      'results.artifactOver': OVER,
      'results.artifactBytes': 1_500_000,
      // One client may hold all of it here: what is tested is whose artifact is evicted.
      'results.artifactShare': 100,
      'mcp.passthrough': ['pt'],
    });
    try {
      const a = new HttpClient(gw.url, LEGACY);
      await a.initialize();
      const b = new HttpClient(gw.url, LEGACY);
      await b.initialize();
      const first = linkOf((await a.request('tools/call', { name: 'big', arguments: {} })).result).link;
      const second = linkOf((await a.request('tools/call', { name: 'big', arguments: {} })).result).link;
      assert.equal((await a.request('resources/read', { uri: first.uri })).error?.code, -32002, 'evicted');
      assert.equal(firstText(await readWhole(a, second.uri)).length, 1_000_000);
      // b's result would need a's artifact gone: it is sent whole, and a's is kept.
      const theirs = await b.request('tools/call', { name: 'big', arguments: {} });
      assert.equal(firstText(theirs.result!).length, 1_000_000);
      assert.equal(firstText(await readWhole(a, second.uri)).length, 1_000_000);
    } finally {
      await gw.close();
    }
  });

  test("one client holds at most its share (results.artifactShare, a quarter): after its flood, another's result is still an artifact", async () => {
    const gw = await gatewayFor(servers, {
      'results.artifactOver': OVER,
      'results.artifactBytes': 4 * 1024 * 1024,
      'mcp.passthrough': ['pt'],
    });
    try {
      const a = new HttpClient(gw.url, LEGACY);
      await a.initialize();
      const b = new HttpClient(gw.url, LEGACY);
      await b.initialize();
      const links: Link[] = [];
      for (let i = 0; i < 6; i++)
        links.push(linkOf((await a.request('tools/call', { name: 'big', arguments: {} })).result).link);
      // A quarter of 4 MiB holds one of a's 1 MB results: each new one evicted its last.
      const listed = ((await a.request('resources/list')).result!.resources as Json[]).filter((r) =>
        String(r.uri).startsWith('mcpx://artifacts/'),
      );
      assert.deepEqual(
        listed.map((r) => r.uri),
        [links.at(-1)!.uri],
      );
      const theirs = linkOf((await b.request('tools/call', { name: 'big', arguments: {} })).result).link;
      assert.equal(firstText(await readWhole(b, theirs.uri)).length, 1_000_000, "b's result is an artifact");
    } finally {
      await gw.close();
    }
  });

  test('an artifact expires after proto.askTTL: no longer read or listed', async () => {
    const gw = await gatewayFor(servers, {
      'results.artifactOver': OVER,
      // Long enough for the call and the whole read to come before it ends, on a loaded machine.
      'proto.askTTL': '2s',
      'mcp.passthrough': ['pt'],
    });
    try {
      const a = new HttpClient(gw.url, LEGACY);
      await a.initialize();
      const { link } = linkOf((await a.request('tools/call', { name: 'big', arguments: {} })).result);
      assert.equal(firstText(await readWhole(a, link.uri)).length, 1_000_000);
      await until(async () => (await a.request('resources/read', { uri: link.uri })).error?.code === -32002, {
        what: 'the artifact expired',
      });
      assert.equal((await a.request('resources/read', { uri: link.uri })).error?.code, -32002);
      const listed = (await a.request('resources/list')).result!.resources as Json[];
      assert.equal(listed.filter((r) => String(r.uri).startsWith('mcpx://artifacts/')).length, 0);
    } finally {
      await gw.close();
    }
  });
});

describe("a profile's own artifactOver", () => {
  let gw: TestGateway;
  before(async () => {
    // Off by the setting; on for one profile, off again (0) for another.
    gw = await gatewayFor(
      servers,
      { 'mcp.passthrough': ['pt'] },
      {
        profiles: {
          small: { servers: ['pt'], mode: 'passthrough', artifactOver: OVER },
          whole: { servers: ['pt'], mode: 'passthrough', artifactOver: 0 },
        },
      },
    );
  });
  after(() => gw?.close());

  test("turns artifacts on for that profile's clients only", async () => {
    // A session's identity (a request-only one could never read an artifact back).
    const big = async (url: string) => {
      const c = new HttpClient(url, LEGACY);
      await c.initialize();
      const r = await c.request('tools/call', { name: 'big', arguments: {} });
      assert.equal(r.error, undefined, JSON.stringify(r.error));
      return { c, result: r.result! };
    };
    const small = await big(`${gw.url}/small`);
    const { link } = linkOf(small.result);
    const whole = await readWhole(small.c, link.uri);
    assert.equal(firstText(whole).length, 1_000_000);
    // The default endpoint and the profile that says 0: the result whole.
    for (const url of [gw.url, `${gw.url}/whole`]) {
      const { result } = await big(url);
      assert.equal(firstText(result).length, 1_000_000, url);
      assert.ok(!(result.content as Json[]).some((c) => c.type === 'resource_link'));
    }
  });
});
