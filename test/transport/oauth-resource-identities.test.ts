// mcpx as an OAuth 2.1 protected resource (docs/security.md "Two ways in"): identities from tokens — valid,
// expired, for another audience, signed by another key or none, short of a scope, opaque by introspection;
// two subjects whose tasks and grants stay apart; rules and profiles matching claims; auth.allowSecret off.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { cliJs } from '../harness/gateway';
import { type TestGateway, fixtureCommand, gatewayFor } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { stays, until } from '../harness/wait';
import { LEGACY, MODERN, issuer, protectedGateway, bearer, post } from './protectedGateway';

/** The parameters of a Bearer challenge. */
function challenge(res: Response): Record<string, string> {
  const h = res.headers.get('www-authenticate') ?? '';
  assert.match(h, /^Bearer /);
  return Object.fromEntries([...h.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
}

const textOf = (r: Json | undefined): string =>
  ((r?.content as Json[] | undefined) ?? []).map((b) => String(b.text ?? '')).join('');

describe('identities from tokens', () => {
  let gw: TestGateway;
  const lines: string[] = [];
  before(async () => {
    gw = await protectedGateway({}, (l) => lines.push(l));
  });
  after(() => gw.close());

  const v1 = (path: string, token: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
    fetch(new URL(path, gw.bare), {
      ...init,
      headers: { ...bearer(token), 'Content-Type': 'application/json', ...init.headers },
    });

  function approval(sub: string): Promise<{ id: string; params: Json }> {
    return until(
      async () => {
        const { questions } = (await (await v1('/v1/questions', gw.secret)).json()) as {
          questions: Array<{ id: string; method: string; params: Json }>;
        };
        return questions.find(
          (x) => x.method === 'mcpx/approval' && (x.params.client as Json).identity === `oauth:${issuer.url}#${sub}`,
        );
      },
      { what: `an approval for ${sub}`, every: 25 },
    );
  }

  test("two subjects: a grant is one subject's; a task is its owner's, whatever the other names", async () => {
    const alice = await issuer.mint({ sub: 'alice', aud: gw.bare, scope: 'mcp' });
    const bob = await issuer.mint({ sub: 'bob', aud: gw.bare, scope: 'mcp' });
    // Bob names Alice's identity in every way a client can: it is his token's that counts.
    const a = new HttpClient(gw.bare, LEGACY, { headers: bearer(alice) });
    const b = new HttpClient(gw.bare, LEGACY, { headers: { ...bearer(bob), 'Mcpx-Identity': 'alice' } });
    await a.initialize();
    await b.initialize();
    const call = (c: HttpClient, text: string) =>
      c.request('tools/call', { name: 'echo', arguments: { text } }, { meta: { 'dev.mcpx/session': 'alice' } });
    const first = call(a, 'one');
    await v1(`/v1/questions/${(await approval('alice')).id}`, gw.secret, {
      method: 'POST',
      body: JSON.stringify({ action: 'always' }),
    });
    assert.equal(textOf((await first).result), 'one');
    assert.equal(textOf((await call(a, 'two')).result), 'two', "Alice's grant lets her through unasked");
    const bobs = call(b, 'three');
    const q = await approval('bob');
    await v1(`/v1/questions/${q.id}`, gw.secret, { method: 'POST', body: JSON.stringify({ action: 'deny' }) });
    assert.equal((await bobs).result?.isError, true, 'Bob is asked, and denied: the grant is not his');
    // Tasks: Alice's is hers alone, over MCP and over /v1.
    const started = await a.request('tools/call', {
      name: 'mcpx_call',
      arguments: { server: 'up', tool: 'slow', arguments: { ms: 600_000, steps: 6000 } },
      task: {},
    });
    const id = String((started.result!.task as Json).taskId);
    const listed = async (token: string, h: Record<string, string> = {}) =>
      (((await (await v1('/v1/tasks', token, { headers: h })).json()) as Json).tasks as Json[]).map((t) => t.id);
    assert.deepEqual(await listed(alice), [id]);
    assert.deepEqual(await listed(bob, { 'Mcpx-Identity': 'alice' }), [], "Bob names Alice's identity: nothing");
    assert.equal((await v1(`/v1/tasks/${id}`, bob)).status, 404);
    assert.equal((await v1(`/v1/tasks/${id}/cancel`, bob, { method: 'POST' })).status, 404);
    const got = await b.request('tasks/get', { taskId: id });
    assert.ok(got.error, 'tasks/get of another subject is an error');
    assert.equal((await v1(`/v1/tasks/${id}/cancel`, alice, { method: 'POST' })).status, 200);
    // The activity records name each call's subject; reading them is the person's.
    const records = (await (await v1('/v1/activity', gw.secret)).json()) as { records: Json[] };
    const whose = (text: string) =>
      (records.records.find((r) => r.target === 'echo' && JSON.stringify(r).includes(text))?.client as Json | undefined)
        ?.identity;
    const echoes = records.records.filter((r) => r.target === 'echo').map((r) => (r.client as Json).identity);
    assert.ok(
      echoes.includes(`oauth:${issuer.url}#alice`) && echoes.includes(`oauth:${issuer.url}#bob`),
      JSON.stringify(echoes),
    );
    assert.equal(whose('never-a-name'), undefined);
    assert.equal((await v1('/v1/activity', alice)).status, 403);
  });

  test("/v1/events takes a token: of the gateway's events, none of anyone's calls", async () => {
    const alice = await issuer.mint({ sub: 'alice', aud: gw.bare, scope: 'mcp' });
    const open = async (token: string) => {
      const res = await fetch(new URL('/v1/events', gw.bare), { headers: bearer(token) });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
      const reader = res.body!.getReader();
      let text = '';
      void (async () => {
        for (;;) {
          const r = await reader.read().catch(() => ({ done: true, value: undefined }));
          if (r.done) return;
          text += new TextDecoder().decode(r.value);
        }
      })();
      return { text: () => text, close: () => reader.cancel() };
    };
    const person = await open(gw.secret);
    const token = await open(alice);
    // A call that reports progress and logs as it goes.
    const c = new HttpClient(gw.bare, MODERN, { headers: bearer(gw.secret) });
    await c.request('tools/call', { name: 'slow', arguments: { ms: 200, steps: 4 } }, { meta: { progressToken: 'p' } });
    await until(() => /event: (progress|server\.log)/.test(person.text()), { what: 'the person sees the call' });
    await stays(() => !/event: (progress|server\.log|question)/.test(token.text()), {
      for: 100,
      what: 'the token sees nothing of it',
    });
    await person.close();
    await token.close();
    assert.match(person.text(), /event: (progress|server\.log)/, 'the person sees the call');
    assert.doesNotMatch(token.text(), /event: (progress|server\.log|question)/, token.text());
  });

  test('a scope: identity server: one instance per subject, the same for every token and request of it', async () => {
    const gwi = await gatewayFor(
      { mine: { ...fixtureCommand(['--rev', MODERN, '--name', 'mine']), scope: 'identity' } },
      { 'auth.issuer': issuer.url, 'mcp.passthrough': ['mine'] },
    );
    try {
      const who = async (sub: string) => {
        const token = await issuer.mint({ sub, aud: gwi.bare });
        const r = await new HttpClient(gwi.bare, MODERN, { headers: bearer(token) }).request('tools/call', {
          name: 'whoami',
          arguments: {},
        });
        return textOf(r.result);
      };
      const a1 = await who('alice');
      assert.equal(await who('alice'), a1, "a new token of Alice's, a new request: her instance");
      assert.notEqual(await who('bob'), a1, 'Bob has his own');
    } finally {
      await gwi.close();
    }
  });

  test("a legacy session serves the subject that made it: another token's is 404", async () => {
    const alice = await issuer.mint({ sub: 'alice', aud: gw.bare, scope: 'mcp' });
    const bob = await issuer.mint({ sub: 'bob', aud: gw.bare, scope: 'mcp' });
    const a = new HttpClient(gw.bare, LEGACY, { headers: bearer(alice) });
    await a.initialize();
    const res = await post(gw.bare, { ...bearer(bob), 'Mcp-Session-Id': a.sessionId!, 'MCP-Protocol-Version': LEGACY });
    assert.equal(res.status, 404);
    const viaSecret = await post(gw.bare, { ...bearer(gw.secret), 'Mcp-Session-Id': a.sessionId! });
    assert.equal(viaSecret.status, 404, 'nor the secret');
  });

  test('a rule matching a claim, on every path: the admins group may call add, others are denied', async () => {
    const admin = await issuer.mint({
      sub: 'carol',
      aud: gw.bare,
      scope: 'mcp',
      claims: { groups: ['dev', 'admins'] },
    });
    const dev = await issuer.mint({ sub: 'dan', aud: gw.bare, scope: 'mcp', claims: { groups: ['dev'] } });
    const add = async (headers: Record<string, string>) =>
      (
        await new HttpClient(gw.bare, MODERN, { headers }).request('tools/call', {
          name: 'add',
          arguments: { a: 2, b: 3 },
        })
      ).result;
    assert.equal(textOf(await add(bearer(admin))), '{"sum":5}');
    assert.equal((await add(bearer(dev)))?.isError, true);
    assert.equal((await add(bearer(gw.secret)))?.isError, true, 'the person has no claims: the rule does not match');
    // The same rule on every other path a token's caller has: mcpx_call, an mcpx_exec script, /v1/call.
    const viaTool = async (token: string, name: string, args: Json) =>
      JSON.stringify(
        (
          await new HttpClient(gw.bare, MODERN, { headers: bearer(token) }).request('tools/call', {
            name,
            arguments: args,
          })
        ).result,
      );
    const call = { server: 'up', tool: 'add', arguments: { a: 2, b: 3 } };
    const script = { script: "return await mcpx.call('up', 'add', { a: 2, b: 3 });" };
    for (const [name, args] of [
      ['mcpx_call', call],
      ['mcpx_exec', script],
    ] as const) {
      assert.match(await viaTool(admin, name, args), /sum[^0-9]*5/, `${name}: the admin`);
      assert.match(await viaTool(dev, name, args), /denied by permissions\.rules\[1\]/, `${name}: not an admin`);
    }
    const api = (token: string) =>
      fetch(new URL('/v1/call/up/add', gw.bare), {
        method: 'POST',
        headers: { ...bearer(token), 'Content-Type': 'application/json' },
        body: JSON.stringify({ a: 2, b: 3 }),
      }).then(async (r) => JSON.stringify(await r.json()));
    assert.match(await api(admin), /"sum":5/);
    assert.match(await api(dev), /denied by permissions\.rules\[1\]/);
  });

  test("a profile's access: its claims and scopes; the person always", async () => {
    const ok = await issuer.mint({ aud: `${gw.bare}/ops`, scope: 'mcp ops', claims: { groups: 'admins' } });
    const gatewayWide = await issuer.mint({ aud: gw.bare, scope: 'mcp ops', claims: { groups: 'admins' } });
    const noScope = await issuer.mint({ aud: `${gw.bare}/ops`, scope: 'mcp', claims: { groups: 'admins' } });
    const notAdmin = await issuer.mint({ aud: `${gw.bare}/ops`, scope: 'mcp ops', claims: { groups: 'dev' } });
    const discover = (headers: Record<string, string>) =>
      new HttpClient(`${gw.bare}/ops`, MODERN, { headers }).request('server/discover');
    assert.equal((await discover(bearer(ok))).reply.status, 200);
    assert.equal(
      (await discover(bearer(gatewayWide))).reply.status,
      200,
      'a token for the gateway reaches its profiles',
    );
    assert.equal((await post(gw.bare, bearer(ok))).status, 401, "a profile's token is not the gateway's");
    const short = await post(`${gw.bare}/ops`, bearer(noScope));
    assert.equal(short.status, 403);
    assert.equal(challenge(short).scope, 'mcp ops');
    assert.equal((await post(`${gw.bare}/ops`, bearer(notAdmin))).status, 403);
    assert.equal((await discover(bearer(gw.secret))).reply.status, 200);
  });

  test('mcpx auth whoami: the identity, scopes and claims as the gateway sees them; a refusal exits 2', async () => {
    const whoami = (endpoint: string, token: string) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(
          process.execPath,
          [cliJs(), 'auth', 'whoami', '--endpoint', endpoint, '--token', token],
          (e, stdout, stderr) => resolve({ code: e ? Number(e.code ?? 1) : 0, stdout, stderr }),
        ),
      );
    const sub = 'frank\u001b]0;owned\u0007';
    const token = await issuer.mint({ sub, aud: `${gw.bare}/ops`, scope: 'mcp ops', claims: { groups: ['admins'] } });
    const ok = await whoami(`${gw.bare}/ops`, token);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /profile "ops" of http:\/\/127\.0\.0\.1:\d+ sees the token as:/);
    assert.ok(ok.stdout.includes(`identity  ${JSON.stringify(`oauth:${issuer.url}#${sub}`)}`), ok.stdout);
    assert.match(ok.stdout, /scopes {4}"mcp" "ops"/);
    assert.match(ok.stdout, /"groups":\["admins"\]/);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
    assert.ok(!/[\u0000-\u0009\u000b-\u001f]/.test(ok.stdout), 'nothing a terminal would act on');
    const expired = await whoami(gw.bare, await issuer.mint({ aud: gw.bare, scope: 'mcp', expiresIn: -300 }));
    assert.equal(expired.code, 2, 'an error, as every refusal of mcpx');
    assert.match(expired.stderr, /refuses the token \(HTTP 401\).*expired/);
    const secret = await whoami(gw.bare, gw.secret);
    assert.equal(secret.code, 0);
    assert.match(secret.stdout, /the person \(the endpoint secret\)/);
  });

  test('a subject with control characters: logged escaped, one line', async () => {
    const sub = 'eve\u001b[31m\nadmitted root';
    const token = await issuer.mint({ sub, aud: gw.bare, scope: 'mcp' });
    assert.equal((await post(gw.bare, bearer(token))).status, 200);
    const line = lines.find((l) => l.includes('eve'));
    assert.ok(line, lines.join('\n'));
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
    assert.ok(!/[\u0000-\u001f]/.test(line), JSON.stringify(line));
    assert.ok(line.includes('\\u001b[31m\\nadmitted root'));
  });
});
