// Profiles (docs/gateway.md "Profiles"): one gateway in front of three real stdio upstreams, four profiles
// reached at /mcp/<secret>/<profile> by a 2025-11-25 client (a session) and a 2026-07-28 client each:
// different tool sets, and nothing outside a profile reachable by pass-through, mcpx_call, mcpx_exec,
// the discovery tools, prompts or resources; renames and description overrides reaching the right
// upstream tool; names over 64 characters shortened stably; search mode; the profile's own permission
// rules; list changes told per profile. Every frame a client receives is validated against the schema of
// its revision (test/harness/wire.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseConfig } from '../../src/config/file';
import { safeName } from '../../src/gateway/catalogue/names';
import { assertServerFrame } from '../harness/schema';
import { type TestGateway, fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json, modernListen } from '../harness/wire';
import { stays, until } from '../harness/wait';

after(() => killAll());

/** A tool name of 70 characters: over the hosts' 64. */
const LONG = `very_long_tool_name_${'x'.repeat(50)}`;

const SERVERS = {
  a: fixtureCommand(['--rev', '2025-11-25', '--name', 'a', '--tool-name', LONG]),
  b: fixtureCommand(['--rev', '2025-11-25', '--name', 'b']),
  c: fixtureCommand(['--rev', '2026-07-28', '--name', 'c']),
};

const PROFILES = {
  // Pass-through only: a's echo renamed, its add re-described, its long name shortened; b's whoami under
  // b's own prefix; the rest of a under the server prefix.
  coder: {
    servers: {
      a: {
        include: ['echo', 'add', 'very_long_*', 'mutate'],
        rename: { echo: 'say' },
        describe: { add: 'Sum two numbers, for coders' },
      },
      b: { include: ['whoami'], prefix: 'bee_' },
    },
    mode: 'passthrough',
    prefix: 'server',
  },
  // The gateway's own tools over c alone; a and b unknown.
  review: { servers: ['c'], mode: 'aggregated', permissions: { rules: [{ tool: 'add', action: 'deny' }] } },
  // Search: mcpx_search, mcpx_call and one pinned tool; b's whoami excluded.
  finder: {
    servers: { a: {}, b: { exclude: ['whoami'] } },
    mode: 'search',
    pinned: ['a/echo'],
  },
};

/** A 2025-11-25 client (a session) and a 2026-07-28 client of one profile. */
async function clientsOf(gw: TestGateway, profile: string): Promise<{ legacy: HttpClient; modern: HttpClient }> {
  const legacy = new HttpClient(`${gw.url}/${profile}`, '2025-11-25');
  const init = await legacy.initialize();
  assert.ok(init.result, `initialize at ${profile}: ${JSON.stringify(init.error)}`);
  return { legacy, modern: new HttpClient(`${gw.url}/${profile}`, '2026-07-28') };
}

async function toolNames(c: HttpClient): Promise<string[]> {
  const ex = await c.request('tools/list');
  assert.ok(ex.result, `tools/list: ${JSON.stringify(ex.error)}`);
  return (ex.result.tools as Json[]).map((t) => String(t.name));
}

async function call(c: HttpClient, name: string, args: Json = {}): Promise<Json> {
  const ex = await c.request('tools/call', { name, arguments: args });
  if (ex.error) return { error: ex.error };
  return ex.result!;
}

const textOf = (r: Json): string => ((r.content as Json[] | undefined) ?? []).map((c) => String(c.text ?? '')).join('');
const structured = (r: Json): Json => r.structuredContent as Json;

describe('profiles: one gateway, several tool sets', () => {
  let gw: TestGateway;
  let coder: { legacy: HttpClient; modern: HttpClient };
  let review: { legacy: HttpClient; modern: HttpClient };
  let finder: { legacy: HttpClient; modern: HttpClient };
  before(async () => {
    gw = await gatewayFor(SERVERS, {}, { profiles: PROFILES });
    coder = await clientsOf(gw, 'coder');
    review = await clientsOf(gw, 'review');
    finder = await clientsOf(gw, 'finder');
  });
  after(async () => {
    await gw?.close();
  });

  test('each profile lists its own set, in both eras; the default endpoint is unchanged', async () => {
    const shortened = safeName(`a_${LONG}`);
    assert.ok(shortened.length <= 64 && shortened !== `a_${LONG}`);
    for (const c of [coder.legacy, coder.modern])
      assert.deepEqual(await toolNames(c), ['a_add', 'a_mutate', shortened, 'bee_whoami', 'say'].sort());
    const gatewayTools = ['mcpx_call', 'mcpx_exec', 'mcpx_servers', 'mcpx_tools', 'mcpx_describe', 'mcpx_search'];
    for (const c of [review.legacy, review.modern]) assert.deepEqual(await toolNames(c), gatewayTools);
    for (const c of [finder.legacy, finder.modern])
      assert.deepEqual(await toolNames(c), ['echo', 'mcpx_call', 'mcpx_search']);
    // The default endpoint: gateway mode, every gateway tool, as before profiles.
    assert.deepEqual(await toolNames(new HttpClient(gw.url, '2026-07-28')), gatewayTools);
  });

  test('a name over 64 characters: the same shortened name in both eras; the discovery tools show the original', async () => {
    const shown = (await toolNames(coder.modern)).find((n) => n.startsWith('a_very_long'))!;
    assert.match(shown, /^a_very_long_tool_name_x+_[0-9a-f]{6}$/);
    assert.ok(shown.length <= 64);
    assert.ok((await toolNames(coder.legacy)).includes(shown), 'the same name for the 2025-11-25 client');
    const tools = (await coder.modern.request('tools/list')).result!.tools as Json[];
    assert.equal(tools.find((t) => t.name === 'a_add')!.description, 'Sum two numbers, for coders');
    // finder's search shows the upstream's own name, which mcpx_call takes.
    const hits = structured(await call(finder.modern, 'mcpx_search', { query: 'very long tool name', limit: 3 }))
      .tools as Json[];
    assert.equal(hits[0]!.name, LONG);
    const echoed = await call(finder.legacy, 'mcpx_call', { server: 'a', tool: LONG, arguments: { text: 'orig' } });
    assert.equal(textOf(echoed), 'orig');
  });

  test('renamed, prefixed, shortened and re-described tools reach the right upstream tool', async () => {
    for (const c of [coder.legacy, coder.modern]) {
      assert.equal(textOf(await call(c, 'say', { text: 'hello' })), 'hello');
      assert.deepEqual(structured(await call(c, 'a_add', { a: 2, b: 3 })), { sum: 5 });
      assert.match(textOf(await call(c, 'bee_whoami')), /^b:/);
      // The over-long tool is an echo tool of a: it answers under its shortened name.
      assert.equal(textOf(await call(c, safeName(`a_${LONG}`), { text: 'long' })), 'long');
    }
  });

  test('outside its profile a tool is unknown: the upstream names, other servers, the gateway tools', async () => {
    for (const c of [coder.legacy, coder.modern]) {
      for (const name of ['echo', 'add', 'a_echo', 'whoami', 'bee_crash', 'mcpx_call', 'mcpx_exec', 'a_count']) {
        const r = await call(c, name, {});
        const err = r.error as { code: number; message: string } | undefined;
        assert.ok(err, `${name} is refused at coder`);
        assert.equal(err.code, -32602);
        assert.match(err.message, new RegExp(`no tool named "${name}"`));
      }
    }
    for (const c of [finder.legacy, finder.modern]) {
      const r = await call(c, 'mcpx_exec', { script: 'return 1' });
      assert.match(String((r.error as Json | undefined)?.message), /no tool named "mcpx_exec"/);
      const t = await call(c, 'mcpx_tools', {});
      assert.match(String((t.error as Json | undefined)?.message), /no tool named "mcpx_tools"/);
    }
  });

  test('mcpx_call reaches only the profile: another server is unknown, an excluded tool is unknown', async () => {
    for (const c of [review.legacy, review.modern]) {
      const ok = await call(c, 'mcpx_call', { server: 'c', tool: 'echo', arguments: { text: 'in c' } });
      assert.equal(textOf(ok), 'in c');
      const other = await call(c, 'mcpx_call', { server: 'a', tool: 'echo', arguments: { text: 'x' } });
      const text = JSON.stringify(other);
      assert.match(text, /no server named \\"a\\"; configured: c/);
    }
    for (const c of [finder.legacy, finder.modern]) {
      const who = await call(c, 'mcpx_call', { server: 'b', tool: 'whoami', arguments: {} });
      assert.match(JSON.stringify(who), /server b has no tool named \\"whoami\\"/);
      const echo = await call(c, 'mcpx_call', { server: 'b', tool: 'echo', arguments: { text: 'b!' } });
      assert.equal(textOf(echo), 'b!');
    }
  });

  test('mcpx_exec: its servers are the profile’s, and each call of the script is checked', async () => {
    for (const c of [review.legacy, review.modern]) {
      const r = await call(c, 'mcpx_exec', {
        script: `const mine = await mcpx.servers.c.echo({ text: 'typed' });
          let other; try { await mcpx.call('a', 'echo', { text: 'no' }); other = 'reached'; } catch (e) { other = e.message; }
          let typed; try { await mcpx.servers.a.echo({ text: 'no' }); typed = 'reached'; } catch (e) { typed = e.message; }
          return { mine: mine.content[0].text, other, typed };`,
      });
      const result = structured(r).result as Json;
      assert.equal(result.mine, 'typed');
      assert.match(String(result.other), /no server named "a"; configured: c/);
      assert.match(String(result.typed), /no configured server named "a"/);
    }
  });

  test('the discovery tools show the profile’s tools, under their original names', async () => {
    const listed = structured(await call(review.modern, 'mcpx_tools', {})).tools as Json[];
    assert.ok(listed.length > 0 && listed.every((t) => t.server === 'c'));
    const servers = structured(await call(review.modern, 'mcpx_servers', {})).servers as Json[];
    assert.deepEqual(
      servers.map((s) => s.name),
      ['c'],
    );
    const d = await call(review.legacy, 'mcpx_describe', { server: 'a', tool: 'echo' });
    assert.match(JSON.stringify(d), /no server named \\"a\\"/);
    const desc = structured(await call(review.legacy, 'mcpx_describe', { server: 'c', tool: 'echo' }));
    assert.equal((desc.tool as Json).name, 'echo');
    const found = structured(await call(review.modern, 'mcpx_search', { query: 'echo text back' })).tools as Json[];
    assert.ok(found.length > 0 && found.every((h) => h.server === 'c'));
  });

  test('search mode: mcpx_search finds only the profile’s tools, with its overrides', async () => {
    for (const c of [finder.legacy, finder.modern]) {
      const hits = structured(await call(c, 'mcpx_search', { query: 'returns name pid instance', limit: 50 }))
        .tools as Json[];
      assert.ok(!hits.some((h) => h.server === 'b' && h.name === 'whoami'), "b's whoami is excluded");
      assert.ok(hits.some((h) => h.server === 'a' && h.name === 'whoami'));
      assert.ok(hits.every((h) => h.server === 'a' || h.server === 'b'));
      const other = await call(c, 'mcpx_search', { query: 'echo', server: 'c' });
      assert.match(JSON.stringify(other), /no server named \\"c\\"/);
    }
    // coder lists no gateway tool: mcpx_search is unknown there.
    assert.match(JSON.stringify(await call(coder.modern, 'mcpx_search', { query: 'echo' })), /no tool named/);
  });

  test('prompts and resources: only the profile’s servers', async () => {
    const prompts = (await review.modern.request('prompts/list')).result!.prompts as Json[];
    assert.deepEqual(
      prompts.map((p) => p.name),
      ['c_greet'],
    );
    const resources = (await review.legacy.request('resources/list')).result!.resources as Json[];
    assert.ok(resources.length > 0 && resources.every((r) => String(r.uri).startsWith('mcpx://c/')));
    const read = await review.modern.request('resources/read', { uri: 'mcpx://a/fixture://doc' });
    assert.equal(read.error?.code, -32602, 'a resource of another server is not found (2026-07-28: -32602)');
    const prompt = await review.legacy.request('prompts/get', { name: 'a_greet', arguments: { who: 'x' } });
    assert.match(String(prompt.error?.message), /no prompt named "a_greet"/);
  });

  test('a profile’s permission rules apply on top of the top-level block', async () => {
    const denied = await call(review.modern, 'mcpx_call', { server: 'c', tool: 'add', arguments: { a: 1, b: 2 } });
    assert.equal(denied.isError, true);
    assert.match(textOf(denied), /denied by profiles\.review\.permissions\.rules\[0\]/);
    // The same tool through the default endpoint: the top-level block (none) allows it.
    const plain = await call(new HttpClient(gw.url, '2026-07-28'), 'mcpx_call', {
      server: 'c',
      tool: 'add',
      arguments: { a: 1, b: 2 },
    });
    assert.deepEqual(structured(plain), { sum: 3 });
  });

  test('a profile’s lists are not cached as public (2026-07-28 cacheScope)', async () => {
    const ex = await coder.modern.request('tools/list');
    assert.equal(ex.result!.cacheScope, 'private');
    const plain = await new HttpClient(gw.url, '2026-07-28').request('tools/list');
    assert.equal(plain.result!.cacheScope, 'public');
  });

  test('an unknown profile is 404 with a JSON-RPC error, in both eras; a session stays at its profile', async () => {
    for (const rev of ['2025-11-25', '2026-07-28'] as const) {
      const c = new HttpClient(`${gw.url}/nobody`, rev, { noValidate: true });
      const ex = await c.request(rev === '2025-11-25' ? 'initialize' : 'tools/list', {
        protocolVersion: rev,
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      });
      assert.equal(ex.reply.status, 404);
      const frame = ex.reply.frames[0]!;
      assertServerFrame(rev, frame);
      assert.match(String((frame.error as Json).message), /no profile of that name/);
    }
    // coder's session id at review's endpoint: not found there.
    const moved = new HttpClient(`${gw.url}/review`, '2025-11-25');
    moved.sessionId = coder.legacy.sessionId;
    const ex = await moved.request('tools/list');
    assert.equal(ex.reply.status, 404);
    // Bearer + /mcp/<profile>.
    const bearer = new HttpClient(`${gw.bare}/finder`, '2026-07-28', {
      headers: { Authorization: `Bearer ${gw.secret}` },
    });
    assert.deepEqual(await toolNames(bearer), ['echo', 'mcpx_call', 'mcpx_search']);
    const noSecret = new HttpClient(`${gw.bare}/finder`, '2026-07-28', { noValidate: true });
    assert.equal((await noSecret.request('tools/list')).reply.status, 401);
  });

  test('list changes go per profile: a change of a reaches coder and finder (a in both), not review', async () => {
    const atCoder = await modernListen(`${gw.url}/coder`, { toolsListChanged: true, promptsListChanged: true });
    const atReview = await modernListen(`${gw.url}/review`, { toolsListChanged: true, promptsListChanged: true });
    const atFinder = await modernListen(`${gw.url}/finder`, { toolsListChanged: true });
    try {
      await until(() => [atCoder, atReview, atFinder].every((l) => l.frames().length >= 1));
      const ackCoder = atCoder.frames()[0]!;
      assert.deepEqual((ackCoder.params as Json).notifications, { toolsListChanged: true, promptsListChanged: true });
      const ackReview = atReview.frames()[0]!;
      assert.deepEqual(
        (ackReview.params as Json).notifications,
        { promptsListChanged: true },
        'an aggregated profile lists no upstream tools: no tools list change to promise',
      );
      assert.match(textOf(await call(coder.modern, 'a_mutate')), /^added /);
      // a is in coder and in finder (its pinned echo): both hear of it; review (c only) does not.
      await until(() =>
        [atCoder, atFinder].every((l) => l.frames().some((f) => f.method === 'notifications/tools/list_changed')),
      );
      await stays(() => !atReview.frames().some((f) => String(f.method).endsWith('/list_changed')), {
        for: 300,
        what: 'review hears nothing',
      });
      assert.ok(!atReview.frames().some((f) => String(f.method).endsWith('/list_changed')));
      for (const l of [atCoder, atReview, atFinder]) for (const f of l.frames()) assertServerFrame('2026-07-28', f);
    } finally {
      for (const l of [atCoder, atReview, atFinder]) l.close();
    }
  });

  test('a watch is acknowledged only for the profile’s resources (2026-07-28 listen)', async () => {
    const resources = (await coder.modern.request('resources/list')).result!.resources as Json[];
    const uri = String(resources.find((r) => String(r.uri).startsWith('mcpx://a/'))!.uri);
    const other = uri.replace('mcpx://a/', 'mcpx://c/');
    const l = await modernListen(`${gw.url}/coder`, { resourceSubscriptions: [uri, other] });
    try {
      await until(() => l.frames().length >= 1);
      const ack = l.frames()[0]!;
      assertServerFrame('2026-07-28', ack);
      assert.deepEqual((ack.params as Json).notifications, { resourceSubscriptions: [uri] }, "c is not coder's");
    } finally {
      l.close();
    }
  });

  test('config: bad profiles are refused with their paths', () => {
    const cfg = parseConfig(
      {
        servers: { a: SERVERS.a },
        profiles: {
          'Bad Name': { servers: ['a'], mode: 'both' },
          v1: { servers: ['a'], mode: 'both' },
          x: { servers: ['nope'], mode: 'both' },
          y: { servers: { a: { rename: { echo: 'has space' } } }, mode: 'passthrough' },
          z: { servers: ['a'], mode: 'both', pinned: ['a/echo'] },
          w: { servers: ['a'], mode: 'fast' },
          p: { servers: ['a'], mode: 'both', permissions: { rules: [{ action: 'maybe' }] } },
        },
      },
      'test',
      { env: {} },
    );
    const paths = cfg.issues.map((i) => i.path);
    assert.deepEqual(paths.sort(), [
      'profiles.Bad Name',
      'profiles.p.permissions.rules.0.action',
      'profiles.v1',
      'profiles.w.mode',
      'profiles.x.servers.nope',
      'profiles.y.servers.a.rename.echo',
      'profiles.z.pinned',
    ]);
    assert.equal(cfg.profiles, undefined);
  });
});
