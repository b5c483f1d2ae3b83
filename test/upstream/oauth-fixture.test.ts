// The OAuth fixture (test/fixtures/oauth), driven by hand with fetch: discovery (401 → protected resource
// metadata → AS metadata), dynamic registration, PKCE through the consent page, tokens at the MCP server,
// refresh and rotation, the strict refusals, step-up, expiry and revocation, legacy mode, CIMD.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { describe, test } from 'node:test';
import { alive } from '../harness/process';
import { authorizeRequest, consent, fixtureFor, pkce, postForm, REDIRECT, registerClient } from '../harness/oauth';
import { rpc, session, toolNames } from './oauthFixtureKit';

type Json = Record<string, unknown>;
const getJson = async (url: string): Promise<{ status: number; body: Json }> => {
  const r = await fetch(url);
  return { status: r.status, body: (await r.json()) as Json };
};

/** One JSON-RPC POST to the MCP server (2025-06-18 Streamable HTTP). */
describe('OAuth fixture', () => {
  test('discovery: 401 with resource_metadata and scope, protected resource metadata, AS metadata', async (t) => {
    const fx = await fixtureFor(t);
    const mcpOrigin = new URL(fx.mcp).origin;
    const r = await rpc(fx, undefined, { id: 1, method: 'ping' });
    assert.equal(r.status, 401);
    assert.equal(
      r.headers.get('www-authenticate'),
      `Bearer scope="mcp:read", resource_metadata="${mcpOrigin}/.well-known/oauth-protected-resource/mcp"`,
    );
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const prm = await getJson(mcpOrigin + path);
      assert.equal(prm.status, 200);
      assert.equal(prm.body.resource, fx.mcp);
      assert.deepEqual(prm.body.authorization_servers, [fx.issuer]);
    }
    assert.notEqual(new URL(fx.issuer).origin, mcpOrigin, 'the AS has its own origin');
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const m = (await getJson(fx.issuer + path)).body;
      assert.equal(m.issuer, fx.issuer);
      assert.deepEqual(m.code_challenge_methods_supported, ['S256']);
      assert.deepEqual(m.token_endpoint_auth_methods_supported, ['client_secret_basic', 'client_secret_post', 'none']);
      assert.equal(m.authorization_response_iss_parameter_supported, true);
      assert.equal(m.registration_endpoint, `${fx.issuer}/register`);
      assert.equal(m.revocation_endpoint, `${fx.issuer}/revoke`);
      assert.deepEqual(m.scopes_supported, ['mcp:read', 'mcp:write', 'mcp:admin']);
    }
  });

  test('DCR, PKCE through the consent page, tokens at the MCP server, refresh with rotation', async (t) => {
    const fx = await fixtureFor(t);
    const client = await registerClient(fx);
    assert.equal(client.client_secret, undefined, 'a public client gets no secret');
    const clientId = client.client_id as string;
    const { verifier, challenge } = pkce();
    const page = await authorizeRequest(fx.issuer, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'http://127.0.0.1:40001/callback', // another port than registered: RFC 8252 §7.3
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: fx.mcp,
      scope: 'mcp:read mcp:write',
      state: 'xyz',
    });
    const html = await page.clone().text();
    assert.match(html, /Test Client/);
    assert.match(html, /<li>mcp:write<\/li>/);
    const back = await consent(page);
    assert.equal(back.origin + back.pathname, 'http://127.0.0.1:40001/callback');
    assert.equal(back.searchParams.get('state'), 'xyz');
    assert.equal(back.searchParams.get('iss'), fx.issuer);
    const code = back.searchParams.get('code')!;
    const exchange = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://127.0.0.1:40001/callback',
      client_id: clientId,
      code_verifier: verifier,
      resource: fx.mcp,
    };
    const tok = await postForm(`${fx.issuer}/token`, exchange);
    assert.equal(tok.status, 200, JSON.stringify(tok.body));
    assert.equal(tok.body.token_type, 'Bearer');
    assert.equal(tok.body.expires_in, 3600);
    assert.equal(tok.body.scope, 'mcp:read mcp:write');
    assert.equal(tok.headers.get('cache-control'), 'no-store');
    const access = tok.body.access_token as string;
    const refresh = tok.body.refresh_token as string;

    const sid = await session(fx, access);
    assert.ok((await toolNames(fx, access, sid)).includes('echo'));
    assert.equal((await rpc(fx, undefined, { id: 3, method: 'tools/list' }, sid)).status, 401);
    const wrong = await rpc(fx, 'not-a-token', { id: 3, method: 'tools/list' }, sid);
    assert.equal(wrong.status, 401);
    assert.match(wrong.headers.get('www-authenticate')!, /error="invalid_token"/);

    // Refresh: narrower scope allowed, wider refused; the refresh token rotates.
    const wider = await postForm(`${fx.issuer}/token`, {
      grant_type: 'refresh_token',
      refresh_token: refresh,
      client_id: clientId,
      resource: fx.mcp,
      scope: 'mcp:read mcp:admin',
    });
    assert.equal(wider.body.error, 'invalid_scope');
    const r2 = await postForm(`${fx.issuer}/token`, {
      grant_type: 'refresh_token',
      refresh_token: refresh,
      client_id: clientId,
      resource: fx.mcp,
      scope: 'mcp:read',
    });
    assert.equal(r2.status, 200, JSON.stringify(r2.body));
    assert.equal(r2.body.scope, 'mcp:read');
    assert.notEqual(r2.body.refresh_token, refresh);
    assert.ok((await toolNames(fx, r2.body.access_token as string, sid)).includes('echo'));
    const again = await postForm(`${fx.issuer}/token`, {
      grant_type: 'refresh_token',
      refresh_token: refresh,
      client_id: clientId,
      resource: fx.mcp,
    });
    assert.equal(again.body.error, 'invalid_grant', 'the rotated refresh token stopped working');
    // Reuse of a rotated refresh token revokes the grant: the new access token too.
    assert.equal((await rpc(fx, r2.body.access_token as string, { id: 4, method: 'tools/list' }, sid)).status, 401);

    // The log: the token requests carried resource, and every issued credential is listed.
    const log = (await getJson(`${fx.admin}/log`)).body as {
      requests: Array<{ server: string; path: string; params: Json }>;
      secrets: string[];
    };
    const tokenRequests = log.requests.filter((r) => r.path === '/token');
    assert.equal(tokenRequests.length, 4);
    assert.ok(tokenRequests.every((r) => r.params.resource === fx.mcp));
    for (const s of [access, refresh, code, r2.body.refresh_token as string]) assert.ok(log.secrets.includes(s));
    assert.ok(log.requests.some((r) => r.server === 'mcp' && r.path === '/mcp'));
  });

  test('discovery toggles: prmViaHeaderOnly, prmWellKnownOnly, asMetadata', async (t) => {
    const header = await fixtureFor(t, { prmViaHeaderOnly: true, asMetadata: 'openid' });
    const origin = new URL(header.mcp).origin;
    const challenge = (await rpc(header, undefined, { id: 1, method: 'ping' })).headers.get('www-authenticate')!;
    assert.match(challenge, new RegExp(`resource_metadata="${origin}/prm/mcp"`));
    assert.equal((await getJson(`${origin}/prm/mcp`)).body.resource, header.mcp);
    assert.equal((await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).status, 404);
    assert.equal((await fetch(`${origin}/.well-known/oauth-protected-resource`)).status, 404);
    assert.equal((await fetch(`${header.issuer}/.well-known/oauth-authorization-server`)).status, 404);
    assert.equal((await getJson(`${header.issuer}/.well-known/openid-configuration`)).body.issuer, header.issuer);
    const wellKnown = await fixtureFor(t, { prmWellKnownOnly: true, wwwAuthenticateScope: '' });
    const r = await rpc(wellKnown, undefined, { id: 1, method: 'ping' });
    assert.equal(r.status, 401);
    assert.equal(r.headers.get('www-authenticate'), 'Bearer');
    const prm = await getJson(`${new URL(wellKnown.mcp).origin}/.well-known/oauth-protected-resource/mcp`);
    assert.deepEqual(prm.body.authorization_servers, [wellKnown.issuer]);
  });

  test('legacy mode (2025-03-26): the AS at the MCP origin, no protected resource metadata', async (t) => {
    const fx = await fixtureFor(t, { mode: 'legacy', consent: 'auto' });
    const origin = new URL(fx.mcp).origin;
    assert.equal(fx.issuer, origin);
    const m = (await getJson(`${origin}/.well-known/oauth-authorization-server`)).body;
    assert.equal(m.issuer, origin);
    assert.equal(m.authorization_endpoint, `${origin}/authorize`);
    assert.equal((await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).status, 404);
    const r = await rpc(fx, undefined, { id: 1, method: 'ping' });
    assert.equal(r.status, 401);
    assert.doesNotMatch(r.headers.get('www-authenticate')!, /resource_metadata/);
    const clientId = (await registerClient(fx)).client_id as string;
    const { verifier, challenge } = pkce();
    const a = await authorizeRequest(origin, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    assert.equal(a.status, 302);
    const code = new URL(a.headers.get('location')!).searchParams.get('code')!;
    const tok = await postForm(`${origin}/token`, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
    });
    assert.equal(tok.status, 200, JSON.stringify(tok.body));
    const init = await rpc(fx, tok.body.access_token as string, {
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    assert.equal(init.status, 200);
    assert.equal(((await init.json()) as { result: Json }).result.protocolVersion, '2025-03-26');
  });

  test('CIMD: a client_id that is a URL is fetched, checked and used', async (t) => {
    const docs = createServer((req, res) => {
      const url = `http://127.0.0.1:${port}${req.url}`;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          client_id: req.url === '/liar.json' ? 'http://127.0.0.1:1/other.json' : url,
          client_name: 'Metadata Client',
          redirect_uris: [REDIRECT],
          token_endpoint_auth_method: 'none',
        }),
      );
    });
    await new Promise<void>((r) => docs.listen(0, '127.0.0.1', r));
    t.after(() => docs.close());
    const port = (docs.address() as { port: number }).port;
    const fx = await fixtureFor(t, { cimd: true, dcr: false });
    const m = (await getJson(`${fx.issuer}/.well-known/oauth-authorization-server`)).body;
    assert.equal(m.client_id_metadata_document_supported, true);
    assert.equal(m.registration_endpoint, undefined);
    const clientId = `http://127.0.0.1:${port}/client.json`;
    const { verifier, challenge } = pkce();
    const params = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: fx.mcp,
    };
    const page = await authorizeRequest(fx.issuer, params);
    assert.match(await page.clone().text(), /Metadata Client/);
    const code = (await consent(page)).searchParams.get('code')!;
    const tok = await postForm(`${fx.issuer}/token`, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
      resource: fx.mcp,
    });
    assert.equal(tok.status, 200, JSON.stringify(tok.body));
    assert.equal(tok.body.refresh_token, undefined, 'the document did not ask for refresh_token');
    const liar = await authorizeRequest(fx.issuer, { ...params, client_id: `http://127.0.0.1:${port}/liar.json` });
    assert.equal(liar.status, 400);
  });

  test('the process exits when stdin closes and on SIGTERM', async (t) => {
    for (const how of ['stdin', 'SIGTERM'] as const) {
      const fx = await fixtureFor(t);
      const exited = new Promise<number | null>((r) => fx.child.once('exit', (code) => r(code)));
      if (how === 'stdin') fx.child.stdin!.end();
      else fx.child.kill('SIGTERM');
      assert.equal(await exited, 0, how);
      assert.equal(alive(fx.child.pid!), false);
    }
  });
});
