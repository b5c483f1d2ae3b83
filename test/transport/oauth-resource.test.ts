// mcpx as an OAuth 2.1 protected resource (docs/security.md "Two ways in"), against an authorization
// server built on jose on loopback (test/harness/issuer.ts): the metadata documents, 401 and 403 with their
// challenges, tokens valid, expired, for another audience, signed by another key or by none, short of a
// scope, opaque ones by introspection, key rotation, a JWKS fetch that hangs, two subjects whose tasks and
// grants stay apart, rules and profiles matching claims, auth.allowSecret off, and the attacks on the
// feature itself. Every MCP frame received goes through the harness's schema check.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { INTROSPECTION_CLIENT } from '../harness/issuer';
import { assertServerFrame } from '../harness/schema';
import type { TestGateway } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { LEGACY, MODERN, issuer, protectedGateway, bearer, post } from './protectedGateway';

/** A refusal's body is a JSON-RPC error without an id, valid for every revision. */
async function refusal(res: Response): Promise<string> {
  const body = (await res.json()) as Json;
  assertServerFrame(LEGACY, body);
  return String((body.error as Json).message);
}

/** The parameters of a Bearer challenge. */
function challenge(res: Response): Record<string, string> {
  const h = res.headers.get('www-authenticate') ?? '';
  assert.match(h, /^Bearer /);
  return Object.fromEntries([...h.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
}

describe('metadata and challenges', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await protectedGateway();
  });
  after(() => gw.close());

  test('401 names the metadata and the scopes; the metadata names the issuer, for /mcp and a profile', async () => {
    const origin = new URL(gw.bare).origin;
    const res = await post(gw.bare);
    assert.equal(res.status, 401);
    const c = challenge(res);
    assert.equal(c.resource_metadata, `${origin}/.well-known/oauth-protected-resource/mcp`);
    assert.equal(c.scope, 'mcp');
    assert.equal(c.realm, 'mcpx', 'the endpoint secret still works beside tokens');
    assert.match(await refusal(res), /access token of http:\/\/127\.0\.0\.1/);
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const doc = (await (await fetch(`${origin}${path}`)).json()) as Json;
      assert.deepEqual(doc, {
        resource: `${origin}/mcp`,
        authorization_servers: [issuer.url],
        scopes_supported: ['mcp'],
        bearer_methods_supported: ['header'],
        resource_name: 'mcpx',
      });
    }
    // A profile's endpoint has its own resource, with the scopes its access adds.
    const ops = await post(`${gw.bare}/ops`);
    assert.equal(ops.status, 401);
    assert.equal(challenge(ops).resource_metadata, `${origin}/.well-known/oauth-protected-resource/mcp/ops`);
    assert.equal(challenge(ops).scope, 'mcp ops');
    const doc = (await (await fetch(challenge(ops).resource_metadata!)).json()) as Json;
    assert.equal(doc.resource, `${origin}/mcp/ops`);
    assert.deepEqual(doc.scopes_supported, ['mcp', 'ops']);
    assert.equal((await fetch(`${origin}/.well-known/oauth-protected-resource/mcp/nobody`)).status, 404);
    // A segment that may be a mistyped secret is never put in a challenge.
    const wrong = await post(`${gw.bare}/${gw.secret.slice(0, -2)}xx`);
    assert.equal(wrong.status, 401);
    assert.ok(!(wrong.headers.get('www-authenticate') ?? '').includes(gw.secret.slice(0, 20)));
  });

  test('a valid token: both eras served, frames validated; the secret still works as Bearer', async () => {
    const token = await issuer.mint({ aud: gw.bare, scope: 'mcp' });
    const legacy = new HttpClient(gw.bare, LEGACY, { headers: bearer(token) });
    assert.equal((await legacy.initialize()).reply.status, 200);
    assert.ok(((await legacy.request('tools/list')).result!.tools as Json[]).length > 0);
    const modern = new HttpClient(gw.bare, MODERN, { headers: bearer(token) });
    assert.equal((await modern.request('server/discover')).reply.status, 200);
    const viaSecret = new HttpClient(gw.bare, MODERN, { headers: bearer(gw.secret) });
    assert.equal((await viaSecret.request('server/discover')).reply.status, 200);
  });

  test('tokens refused: expired, another audience, another key, alg none, another issuer (401 invalid_token)', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['expired', await issuer.mint({ aud: gw.bare, scope: 'mcp', expiresIn: -120 }), /expired/],
      ['another audience', await issuer.mint({ aud: 'http://127.0.0.1:1/mcp', scope: 'mcp' }), /aud/],
      ['no audience', await issuer.mint({ scope: 'mcp' }), /aud/],
      ['another key', await issuer.mint({ aud: gw.bare, scope: 'mcp', foreignKey: true }), /key/],
      ['alg none', issuer.unsigned({ aud: gw.bare, scope: 'mcp' }), /algorithm|not a valid JWT/],
      ['another issuer', await issuer.mint({ aud: gw.bare, scope: 'mcp', iss: 'http://127.0.0.1:2' }), /iss/],
      ['not a token', 'not a token at all', /bearer token/],
    ];
    for (const [name, token, why] of cases) {
      const res = await post(gw.bare, { Authorization: `Bearer ${token}` });
      assert.equal(res.status, 401, name);
      const c = challenge(res);
      if (name !== 'not a token') {
        assert.equal(c.error, 'invalid_token', name);
        assert.match(c.error_description!, why, name);
      }
      assert.ok(!(await refusal(res)).includes(token), `${name}: the token is never echoed`);
    }
  });

  test('a token short of a scope is 403 insufficient_scope naming every scope the endpoint needs', async () => {
    const res = await post(gw.bare, bearer(await issuer.mint({ aud: gw.bare, scope: 'other' })));
    assert.equal(res.status, 403);
    const c = challenge(res);
    assert.equal(c.error, 'insufficient_scope');
    assert.equal(c.scope, 'mcp');
    assert.match(c.resource_metadata!, /\/\.well-known\/oauth-protected-resource\/mcp$/);
    await refusal(res);
    // `scp` as a list (another issuer's spelling) counts the same.
    const scp = await issuer.mint({ aud: gw.bare, claims: { scp: ['mcp'] } });
    assert.equal((await post(gw.bare, bearer(scp))).status, 200);
  });

  test('attacks: a token in the query string, a huge token, two credentials, a /v1 route of the person', async () => {
    const token = await issuer.mint({ aud: gw.bare, scope: 'mcp' });
    const q = await post(`${gw.bare}?access_token=${token}`);
    assert.equal(q.status, 400);
    assert.ok(!(await q.text()).includes(token));
    const fetched = issuer.jwksFetches;
    const huge = await post(gw.bare, bearer(`${token}${'A'.repeat(9000)}`));
    assert.equal(huge.status, 401);
    assert.match(challenge(huge).error_description!, /longer than 8192/);
    assert.equal(issuer.jwksFetches, fetched, 'a huge token is refused unread');
    // The secret in the path and a token in the header: one credential per request (RFC 6750 §2).
    const both = await post(gw.url, bearer(token));
    assert.equal(both.status, 400);
    assert.match(await refusal(both), /one credential/);
    // /v1: a token reaches its own tasks and the tools; the person's routes need the secret.
    const v1 = (path: string, h: Record<string, string> = bearer(token)) =>
      fetch(new URL(path, gw.bare), { headers: h });
    assert.equal((await v1('/v1/tasks')).status, 200);
    assert.equal((await v1('/v1/tools')).status, 200);
    for (const path of ['/v1/questions', '/v1/permissions', '/v1/activity', '/v1/profiles', '/v1/pins'])
      assert.equal((await v1(path)).status, 403, path);
    assert.equal((await v1('/v1/questions', bearer(gw.secret))).status, 200, 'the person');
    assert.equal((await v1('/v1/tasks', {})).status, 401);
  });
});

describe('the issuer', () => {
  test('key rotation: a token of the new key is taken once the JWKS is fetched again; the dropped key no longer', async () => {
    const gw = await protectedGateway({ 'auth.keysRefetch': '0ms' });
    try {
      const before = await issuer.mint({ aud: gw.bare, scope: 'mcp' });
      const unused = await issuer.mint({ sub: 'other', aud: gw.bare, scope: 'mcp' });
      assert.equal((await post(gw.bare, bearer(before))).status, 200);
      const fetched = issuer.jwksFetches;
      await issuer.rotate();
      const after = await issuer.mint({ aud: gw.bare, scope: 'mcp' });
      assert.equal((await post(gw.bare, bearer(after))).status, 200);
      assert.ok(issuer.jwksFetches > fetched, 'the JWKS was fetched again for the new key');
      const old = await post(gw.bare, bearer(unused));
      assert.equal(old.status, 401);
      assert.match(challenge(old).error_description!, /key/);
    } finally {
      await gw.close();
    }
  });

  test('a JWKS fetch that hangs: 503 within auth.fetchTimeout, and the next request fetches again', async () => {
    const gw = await protectedGateway({ 'auth.fetchTimeout': '300ms', 'auth.keysRefetch': '0ms' });
    await issuer.rotate(true);
    issuer.hangJwks = true;
    try {
      const token = await issuer.mint({ aud: gw.bare, scope: 'mcp' });
      const res = await post(gw.bare, bearer(token));
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('retry-after'), '5');
      assert.match(await refusal(res), /did not arrive in time/);
      issuer.hangJwks = false;
      assert.equal((await post(gw.bare, bearer(token))).status, 200);
    } finally {
      issuer.hangJwks = false;
      await gw.close();
    }
  });

  test('opaque tokens by introspection: active and for this resource, or refused', async () => {
    const gw = await protectedGateway({
      'auth.clientId': INTROSPECTION_CLIENT.id,
      'auth.clientSecret': INTROSPECTION_CLIENT.secret,
    });
    try {
      const good = issuer.opaqueToken({ sub: 'olga', aud: gw.bare, scope: 'mcp' });
      const c = new HttpClient(gw.bare, MODERN, { headers: bearer(good) });
      assert.equal((await c.request('server/discover')).reply.status, 200);
      const refused: Array<[string, string]> = [
        ['unknown', 'an-opaque-token-nobody-issued'],
        ['another audience', issuer.opaqueToken({ sub: 'olga', aud: 'https://elsewhere.example/mcp', scope: 'mcp' })],
        ['no audience', issuer.opaqueToken({ sub: 'olga', scope: 'mcp' })],
      ];
      for (const [name, token] of refused) assert.equal((await post(gw.bare, bearer(token))).status, 401, name);
    } finally {
      await gw.close();
    }
  });

  test('auth.audience: the public URL behind a proxy is the resource; its metadata is where it says', async () => {
    const audience = 'https://mcp.example.com/team/mcp';
    const gw = await protectedGateway({ 'auth.audience': audience });
    try {
      const origin = new URL(gw.bare).origin;
      const res = await post(gw.bare);
      assert.equal(
        challenge(res).resource_metadata,
        'https://mcp.example.com/.well-known/oauth-protected-resource/team/mcp',
      );
      // A proxy forwarding that path, or a client asking here: the same document.
      for (const path of ['/team/mcp', '/mcp', '/team/mcp/ops'])
        assert.equal(
          ((await (await fetch(`${origin}/.well-known/oauth-protected-resource${path}`)).json()) as Json).resource,
          path.endsWith('/ops') ? `${audience}/ops` : audience,
        );
      assert.equal((await post(gw.bare, bearer(await issuer.mint({ aud: audience, scope: 'mcp' })))).status, 200);
      const local = await post(gw.bare, bearer(await issuer.mint({ aud: gw.bare, scope: 'mcp' })));
      assert.equal(local.status, 401, 'the loopback URL is not the resource any more');
    } finally {
      await gw.close();
    }
  });

  test('auth.allowSecret off: tokens only; the secret is refused as Bearer and in the path', async () => {
    const gw = await protectedGateway({
      'auth.allowSecret': false,
      'auth.clientId': INTROSPECTION_CLIENT.id,
      'auth.clientSecret': INTROSPECTION_CLIENT.secret,
    });
    try {
      const introspected = issuer.introspections;
      const res = await post(gw.bare, bearer(gw.secret));
      assert.equal(res.status, 401);
      assert.equal(issuer.introspections, introspected, 'the secret is never sent to the issuer as a token');
      assert.match(challenge(res).error_description!, /auth\.allowSecret is off/);
      assert.equal(challenge(res).realm, undefined, 'no realm: the secret is no way in');
      assert.doesNotMatch(await refusal(res), /or the endpoint secret/, 'the secret is not offered as a way in');
      assert.equal((await post(gw.url)).status, 401, '/mcp/<secret>');
      assert.equal((await fetch(new URL('/v1/questions', gw.bare), { headers: bearer(gw.secret) })).status, 401);
      const token = await issuer.mint({ aud: gw.bare, scope: 'mcp' });
      assert.equal((await post(gw.bare, bearer(token))).status, 200);
    } finally {
      await gw.close();
    }
  });
});
