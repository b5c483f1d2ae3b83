// What mcpx promises a hostile or careless peer (docs/security.md): single-use requestState with the
// round count kept by mcpx; messages nested too deeply and ids JSON cannot carry exactly refused as they
// are read; invalid upstream results never relayed; secrets of server definitions out of output, errors and logs; stdio upstreams started with a
// safe environment, not the gateway's.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Listening } from '../../src/app/app';
import type { JsonObject, Request, Response } from '../../src/protocol/jsonrpc';
import { testProvider } from '../fixtures/provider';
import { listen } from '../../src/app/app';
import { parseConfig } from '../../src/config/file';
import { Settings } from '../../src/config/settings';
import { Gateway } from '../../src/gateway/gateway';
import { startTestServer } from '../harness/gateway';
import { resultProblem } from '../../src/protocol/methods';
import { fixtureCommand, gatewayFor } from '../harness/upstreams';
import { memoryServer, memoryStdio } from '../harness/memory';
import { assertServerFrame } from '../harness/schema';
import { HttpClient, type Json } from '../harness/wire';
import { until } from '../harness/wait';

const MODERN = '2026-07-28';
const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';

/** `{"a":{"a":…}}` nested `n` levels, built without recursion. */
function nested(n: number): JsonObject {
  let v: JsonObject = {};
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
}
/** The same, as text (JSON.stringify of a very deep value overflows the stack). */
const nestedText = (n: number) => `${'{"a":'.repeat(n)}{}${'}'.repeat(n)}`;

let gw: Listening;
before(async () => {
  gw = await startTestServer({ 'proto.askRounds': 8 });
});
after(() => gw.close());

describe('requestState', () => {
  const asker = () => new HttpClient(gw.url, MODERN, { capabilities: { elicitation: {} } });
  const ask = (c: HttpClient, extra: Json = {}) =>
    c.request('tools/call', { name: 'ask', arguments: { times: 100 }, ...extra });
  const answer = (r: Json) => {
    const [k] = Object.keys(r.inputRequests as Json);
    return { inputResponses: { [k!]: { action: 'accept', content: { n: 1 } } }, requestState: r.requestState };
  };

  test('a state resumes its call once: a second use is -32602 "already used"', async () => {
    const c = asker();
    const r1 = (await ask(c)).result!;
    const r2 = await ask(c, answer(r1));
    assert.equal(r2.result?.resultType, 'input_required');
    const again = await ask(c, answer(r1));
    assert.equal(again.error?.code, -32602);
    assert.equal(again.reply.status, 400);
    assert.match(again.error!.message, /already used/);
  });

  test("a named identity's requestState is refused from another identity, and stays the owner's", async () => {
    const SESSION = 'dev.mcpx/session';
    const alice = { meta: { [SESSION]: 'alice' } };
    const mallory = { meta: { [SESSION]: 'mallory' } };
    const c = asker();
    const r1 = (await c.request('tools/call', { name: 'ask', arguments: { times: 1 } }, alice)).result!;
    assert.equal(r1.resultType, 'input_required');
    // Another named identity, and a client naming none, presenting alice's state: refused, nothing delivered.
    for (const who of [mallory, {}]) {
      const stolen = await c.request('tools/call', { name: 'ask', arguments: { times: 1 }, ...answer(r1) }, who);
      assert.equal(stolen.error?.code, -32602);
      assert.equal(stolen.reply.status, 400);
      assert.match(stolen.error!.message, /issued to another client/);
    }
    // The owner's own retry still resumes the call and collects its result.
    const mine = await c.request('tools/call', { name: 'ask', arguments: { times: 1 }, ...answer(r1) }, alice);
    assert.equal(mine.error, undefined);
    assert.notEqual(mine.result?.resultType, 'input_required');
    assert.equal(mine.result?.isError, undefined);
  });

  test('replaying the first round state twelve times gets no round; the chain still ends at proto.askRounds', async () => {
    const c = asker();
    const r1 = (await ask(c)).result!;
    let r = (await ask(c, answer(r1))).result!;
    assert.equal(r.resultType, 'input_required');
    for (let i = 0; i < 12; i++) {
      const replay = await ask(c, answer(r1));
      assert.equal(replay.error?.code, -32602);
      assert.match(replay.error!.message, /already used/);
    }
    // The count is the call's: rounds 1 and 2 are spent, so six more input_required, then the bound.
    let rounds = 2;
    for (;;) {
      const next = await ask(c, answer(r));
      if (next.error) {
        assert.equal(next.error.code, -32603);
        assert.match(next.error.message, /after 8 rounds \(proto\.askRounds\)/);
        break;
      }
      r = next.result!;
      rounds++;
    }
    assert.equal(rounds, 8);
  });

  test('the MAC is checked before the params are hashed; the hash reads a depth-limited form', async () => {
    // Through the server core (no transport depth check): params far deeper than the stack allows.
    const mem = memoryServer(testProvider(), { 'limits.paramsDepth': 64 });
    try {
      const { runner, channel } = mem.runner();
      const req = (id: number, params: JsonObject): Request => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { ...params, _meta: { [PV]: MODERN, [CAPS]: { elicitation: {} } } },
      });
      const err = (r: Response | undefined) => (r && 'error' in r ? r.error : undefined);
      const forged = await runner.request(
        req(1, { name: 'ask', arguments: nested(20_000), requestState: 'eyJjIjoieCJ9.AAAA' }),
        MODERN,
        channel,
      );
      assert.equal(err(forged.response)?.code, -32602);
      assert.match(err(forged.response)!.message, /failed verification/);
      // A genuine state on a request too deep to hash: -32602, not a stack overflow.
      const first = await runner.request(req(2, { name: 'ask', arguments: { times: 2 } }), MODERN, channel);
      const state = (first.response as { result: Json }).result.requestState;
      const deep = await runner.request(
        req(3, { name: 'ask', arguments: nested(20_000), requestState: state }),
        MODERN,
        channel,
      );
      assert.equal(err(deep.response)?.code, -32602);
      assert.match(err(deep.response)!.message, /nested too deeply \(limits\.paramsDepth\)/);
    } finally {
      await mem.close();
    }
  });
});

describe('Hostile shapes', () => {
  const deepCall = (id: number | string, depth: number) =>
    `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":"echo","arguments":{"text":"x","a":${nestedText(depth)}}}}`;

  test('a message nested deeper than limits.paramsDepth is -32602 with HTTP 400, in both eras', async () => {
    const modern = new HttpClient(gw.url, MODERN);
    const body = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: modern.params({ name: 'echo' }) };
    const raw = JSON.stringify(body).replace('"name":"echo"', `"name":"echo","arguments":${nestedText(5000)}`);
    const r = await modern.post(body, undefined, { raw });
    assert.equal(r.status, 400);
    assert.equal((r.frames[0]!.error as Json).code, -32602);
    assert.match(String((r.frames[0]!.error as Json).message), /limits\.paramsDepth/);
    assert.equal(r.frames[0]!.id, 7);

    const legacy = new HttpClient(gw.url, '2025-11-25');
    await legacy.initialize();
    const l = await legacy.post({ jsonrpc: '2.0', id: 8, method: 'tools/call' }, undefined, { raw: deepCall(8, 5000) });
    assert.equal(l.status, 400);
    assert.equal((l.frames[0]!.error as Json).code, -32602);
  });

  test('a message within the limit is read as before', async () => {
    const legacy = new HttpClient(gw.url, '2025-11-25');
    await legacy.initialize();
    const l = await legacy.post({ jsonrpc: '2.0', id: 9, method: 'tools/call' }, undefined, { raw: deepCall(9, 40) });
    assert.equal(l.status, 200);
    assert.ok(l.frames[0]!.result);
  });

  test('stdio: the same refusal, one line, the connection goes on', async () => {
    const mem = memoryServer(testProvider());
    const io = memoryStdio(mem.server);
    try {
      io.write({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      await io.next((m) => (m as Json).id === 1);
      io.write(deepCall(2, 10_000));
      const refused = (await io.next((m) => (m as Json).id === 2)) as Json;
      assert.equal((refused.error as Json).code, -32602);
      assertServerFrame('2025-11-25', refused, 'tools/call');
      io.write({ jsonrpc: '2.0', id: 3, method: 'ping' });
      assert.deepEqual(((await io.next((m) => (m as Json).id === 3)) as Json).result, {});
    } finally {
      io.end();
      await io.transport.closed;
      await mem.close();
    }
  });

  test('an id beyond 2^53 is refused with -32600, never echoed rounded', async () => {
    const legacy = new HttpClient(gw.url, '2025-11-25', { noValidate: true });
    await legacy.initialize();
    for (const id of ['9007199254740993', '9007199254740992', '1e2', '1.0000000000000001']) {
      const r = await legacy.post({}, undefined, { raw: `{"jsonrpc":"2.0","id":${id},"method":"ping"}` });
      assert.equal(r.status, 400, id);
      assert.equal((r.frames[0]!.error as Json).code, -32600, id);
      assert.equal('id' in r.frames[0]!, false, `${id}: no rounded id echoed`);
    }
    const ok = await legacy.post({}, undefined, { raw: '{"jsonrpc":"2.0","id": 9007199254740991,"method":"ping"}' });
    assert.equal(ok.frames[0]!.id, 9007199254740991);
    const nested = await legacy.post({}, undefined, {
      raw: '{"jsonrpc":"2.0","method":"ping","params":{"id":5},"id":42}',
    });
    assert.equal(nested.frames[0]!.id, 42);
    // A nested "id":1 does not vouch for the message's own 1.0000000000000001 (read as 1).
    const shadowed = await legacy.post({}, undefined, {
      raw: '{"jsonrpc":"2.0","method":"ping","params":{"_meta":{"id":1}},"id":1.0000000000000001}',
    });
    assert.equal(shadowed.status, 400);
    assert.equal((shadowed.frames[0]!.error as Json).code, -32600);
    // Nor does another item's id in a batch.
    const batch = new HttpClient(gw.url, '2025-03-26', { noValidate: true });
    const other = await batch.post({}, undefined, {
      raw: '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1.0000000000000001,"method":"ping"}]',
    });
    assert.equal(other.status, 400);
    assert.equal((other.frames[0]!.error as Json).code, -32600);
  });
});

describe('Upstream environment', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-env-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  // An "upstream" that writes the environment it got to a file and exits.
  const reporter = (file: string, extra: Json = {}) => ({
    command: process.execPath,
    args: ['-e', 'require("fs").writeFileSync(process.argv[1], JSON.stringify(process.env))', file],
    ...extra,
  });
  async function envOf(extra: Json, values: Record<string, unknown> = {}): Promise<Record<string, string>> {
    const file = join(dir, `env-${Math.random().toString(36).slice(2)}.json`);
    process.env.MCPX_TEST_SENTINEL = 'sentinel-value';
    const gw = await gatewayFor({ rep: reporter(file, extra) }, values);
    try {
      const c = new HttpClient(gw.url, '2025-11-25');
      await c.initialize();
      await c.request('tools/call', { name: 'mcpx_call', arguments: { server: 'rep', tool: 'x' } });
    } finally {
      await gw.close();
      delete process.env.MCPX_TEST_SENTINEL;
    }
    assert.ok(existsSync(file), 'the upstream ran');
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  }

  test('a stdio upstream gets the safe list and its own env, not the rest of the gateway environment', async () => {
    const env = await envOf({ env: { OWN: 'own' } });
    assert.equal(env.MCPX_TEST_SENTINEL, undefined);
    assert.equal(env.PATH, process.env.PATH);
    assert.equal(env.HOME, process.env.HOME);
    assert.equal(env.OWN, 'own');
  });

  test('upstream.env names variables every stdio upstream gets', async () => {
    const env = await envOf({}, { 'upstream.env': ['MCPX_TEST_SENTINEL'] });
    assert.equal(env.MCPX_TEST_SENTINEL, 'sentinel-value');
  });

  test('inheritEnv: true passes the whole environment', async () => {
    const env = await envOf({ inheritEnv: true });
    assert.equal(env.MCPX_TEST_SENTINEL, 'sentinel-value');
  });
});

describe('Secrets in output and logs', () => {
  test('no secret of a definition reaches mcpx_servers, an error or a log line; host and path do', async () => {
    const down = 'http://127.0.0.1:1/mcp'; // nothing listens on port 1
    const secrets = [
      'sk-query-secret-1',
      'qvalue-secret-2',
      'pw-secret-3',
      'hdr-secret-4',
      'bearer-secret-5',
      'env-secret-6',
      'sig-secret-7',
      'basic-secret-8',
    ];
    const servers = {
      query: { url: `${down}?api_key=${secrets[0]}&x-Signature=${secrets[6]}&plain=visible` },
      authq: { url: down, auth: { type: 'query', name: 'q', value: secrets[1] } },
      userinfo: { url: `http://someone:${secrets[2]}@127.0.0.1:1/mcp` },
      headers: { url: down, headers: { 'X-Custom': secrets[3] }, auth: { type: 'bearer', token: secrets[4] } },
      basic: { url: down, auth: { type: 'basic', username: 'me', password: secrets[7] } },
      // A stdio upstream that prints its secret on stderr (logged) and exits.
      env: {
        command: process.execPath,
        args: ['-e', 'console.error("my secret is " + process.env.SECRET_ENV); process.exit(1)'],
        env: { SECRET_ENV: secrets[5] },
      },
    };
    const config = parseConfig({ servers }, 'test', { env: process.env });
    assert.deepEqual(config.issues, []);
    const settings = new Settings([
      { source: 'flag', values: { 'pool.probeTimeout': '1s', 'pool.startTimeout': '5s' } },
    ]);
    const logs: string[] = [];
    const g = new Gateway(config, settings, { log: (l) => logs.push(l) });
    const l = await listen({ provider: g, settings, port: 0, address: '127.0.0.1' });
    const seen: string[] = [];
    try {
      const c = new HttpClient(l.endpoint, '2025-11-25');
      await c.initialize();
      for (const server of Object.keys(servers)) {
        const r = await c.request('tools/call', { name: 'mcpx_call', arguments: { server, tool: 'x' } });
        assert.ok(r.error ?? r.result?.isError, `${server} failed`);
        seen.push(JSON.stringify(r.response));
      }
      // Logs of the stdio upstream's stderr arrive asynchronously: its one line.
      await until(() => logs.some((l) => l.includes('my secret is')), { what: "the stdio upstream's stderr logged" });
      const st = await c.request('tools/call', { name: 'mcpx_servers', arguments: {} });
      seen.push(JSON.stringify(st.response));
      const t = await c.request('tools/call', { name: 'mcpx_tools', arguments: {} });
      seen.push(JSON.stringify(t.response));
    } finally {
      await l.close();
      await g.close();
    }
    const all = [...seen, ...logs].join('\n');
    for (const s of secrets) assert.ok(!all.includes(s), `${s} leaked:\n${all}`);
    assert.ok(!all.includes(Buffer.from(`me:${secrets[7]}`).toString('base64')), 'basic credentials leaked');
    // What is not secret is still said: the host, the path, an ordinary query parameter, the stderr line.
    assert.match(all, /127\.0\.0\.1:1\/mcp\?api_key=\*\*\*/);
    assert.match(all, /plain=visible/);
    assert.match(all, /my secret is \*\*\*/);
  });
});

describe('Upstream results', () => {
  const fixture = (rev: string) =>
    fixtureCommand([
      '--rev',
      rev,
      '--name',
      'bad',
      '--tool-result',
      'broken={"content":"notanarray"}',
      '--tool-result',
      'fine={"content":[{"type":"text","text":"ok"}]}',
    ]);

  test('an invalid tools/call result is an error naming the upstream, never relayed (both eras)', async () => {
    for (const rev of ['2025-11-25', MODERN]) {
      const gw = await gatewayFor({ bad: fixture(rev) }, { 'mcp.passthrough': ['bad'] });
      try {
        // A 2025-11-25 client through mcpx_call; a 2026-07-28 client through the pass-through name.
        const legacy = new HttpClient(gw.url, '2025-11-25');
        await legacy.initialize();
        const viaCall = await legacy.request('tools/call', {
          name: 'mcpx_call',
          arguments: { server: 'bad', tool: 'broken' },
        });
        assert.equal(viaCall.error?.code, -32603, rev);
        assert.equal(
          viaCall.error!.message,
          'upstream bad returned an invalid tools/call result: content must be an array',
        );
        const modern = new HttpClient(gw.url, MODERN);
        const direct = await modern.request('tools/call', { name: 'broken' });
        assert.equal(direct.error?.code, -32603);
        assert.equal(direct.reply.status, 500);
        assert.match(direct.error!.message, /upstream bad returned an invalid tools\/call result/);
        // A valid one still passes, verbatim.
        const fine = await modern.request('tools/call', { name: 'fine' });
        assert.deepEqual(fine.result?.content, [{ type: 'text', text: 'ok' }]);
      } finally {
        await gw.close();
      }
    }
  });

  test('each relayed method has its required shape checked', () => {
    const bad: Array<[string, unknown, string]> = [
      ['tools/call', { content: [{ text: 'no type' }] }, 'content.0.type is required'],
      ['tools/call', { content: [], isError: 'yes' }, 'isError must be a boolean'],
      ['prompts/get', { messages: {} }, 'messages must be an array'],
      ['resources/read', { contents: [{ text: 'x' }] }, 'contents.0.uri is required'],
      ['tools/list', { tools: [{ name: 't' }] }, 'tools.0.inputSchema is required'],
      ['prompts/list', {}, 'prompts is required'],
      ['resources/list', { resources: [{ name: 'r' }] }, 'resources.0.uri is required'],
      [
        'resources/templates/list',
        { resourceTemplates: [{ name: 'r', uri: 'x' }] },
        'resourceTemplates.0.uriTemplate is required',
      ],
      ['completion/complete', { completion: { values: [1] } }, 'completion.values.0 must be a string'],
      ['tools/list', { tools: [], nextCursor: 5 }, 'nextCursor must be a string'],
    ];
    for (const [method, result, why] of bad) assert.equal(resultProblem(method, result), why, method);
    assert.equal(resultProblem('tools/call', { content: [], structuredContent: { a: 1 }, extra: true }), undefined);
    assert.equal(resultProblem('ping', { anything: 1 }), undefined);
  });
});
