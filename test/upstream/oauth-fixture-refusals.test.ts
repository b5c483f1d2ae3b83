// The OAuth fixture (test/fixtures/oauth) refusing, driven by hand with fetch: the strict refusals (plain
// PKCE, a wrong resource, an unregistered redirect, client authentication), step-up to mcp:admin, expiry
// and revocation.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { authorizeRequest, fixtureFor, pkce, postForm, REDIRECT, registerClient, tokensFor } from '../harness/oauth';
import { rpc, session, toolNames } from './oauthFixtureKit';

type Json = Record<string, unknown>;
const STEP_UP = 'admin_tool';

/** One JSON-RPC POST to the MCP server (2025-06-18 Streamable HTTP). */
describe('OAuth fixture', () => {
  test('strict refusals: plain PKCE, wrong resource, unregistered redirect, client authentication', async (t) => {
    const fx = await fixtureFor(t, {
      preRegistered: [
        { client_id: 'conf', client_secret: 's3cret', token_endpoint_auth_method: 'client_secret_basic' },
        { client_id: 'post', client_secret: 'p0st', token_endpoint_auth_method: 'client_secret_post' },
      ],
      consent: 'auto',
      otherResources: ['http://127.0.0.1:2/other'],
    });
    const clientId = (await registerClient(fx)).client_id as string;
    const { verifier, challenge } = pkce();
    const base = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: fx.mcp,
      state: 'st',
    };
    const redirected = async (params: Record<string, string>): Promise<URL> => {
      const r = await authorizeRequest(fx.issuer, params);
      assert.equal(r.status, 302);
      return new URL(r.headers.get('location')!);
    };
    const plain = await redirected({ ...base, code_challenge: verifier, code_challenge_method: 'plain' });
    assert.equal(plain.searchParams.get('error'), 'invalid_request');
    assert.equal(plain.searchParams.get('state'), 'st');
    assert.equal(plain.searchParams.get('iss'), fx.issuer);
    const noMethod = await redirected({ ...base, code_challenge_method: '' });
    assert.equal(noMethod.searchParams.get('error'), 'invalid_request');
    const { code_challenge: _c, ...noChallenge } = base;
    assert.equal((await redirected(noChallenge)).searchParams.get('error'), 'invalid_request');
    const other = await redirected({ ...base, resource: 'http://127.0.0.1:1/elsewhere' });
    assert.equal(other.searchParams.get('error'), 'invalid_target');
    const { resource: _r, ...noResource } = base;
    assert.equal((await redirected(noResource)).searchParams.get('error'), 'invalid_target');
    assert.equal((await redirected({ ...base, scope: 'root' })).searchParams.get('error'), 'invalid_scope');
    assert.equal(
      (await redirected({ ...base, response_type: 'token' })).searchParams.get('error'),
      'unsupported_response_type',
    );
    // No redirect to a URI that is not registered, nor for an unknown client.
    const unregistered = await authorizeRequest(fx.issuer, { ...base, redirect_uri: 'http://127.0.0.1:7777/other' });
    assert.equal(unregistered.status, 400);
    assert.equal(((await unregistered.json()) as Json).error, 'invalid_request');
    const evil = await authorizeRequest(fx.issuer, { ...base, redirect_uri: 'https://evil.example/callback' });
    assert.equal(evil.status, 400);
    assert.equal((await authorizeRequest(fx.issuer, { ...base, client_id: 'nobody' })).status, 400);

    // Token endpoint: wrong resource, wrong verifier, unknown grant type.
    const codeOf = async (): Promise<string> => (await redirected(base)).searchParams.get('code')!;
    const exchange = (code: string, extra: Record<string, string> = {}) =>
      postForm(`${fx.issuer}/token`, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: verifier,
        resource: fx.mcp,
        ...extra,
      });
    assert.equal(
      (await exchange(await codeOf(), { resource: 'http://127.0.0.1:1/elsewhere' })).body.error,
      'invalid_target',
    );
    assert.equal((await exchange(await codeOf(), { code_verifier: pkce().verifier })).body.error, 'invalid_grant');
    assert.equal(
      (await exchange(await codeOf(), { redirect_uri: 'http://127.0.0.1:7777/x' })).body.error,
      'invalid_grant',
    );
    // A code is single-use; its second use revokes what the first got.
    const once = await codeOf();
    const first = await exchange(once);
    assert.equal(first.status, 200);
    const second = await exchange(once);
    assert.equal(second.body.error, 'invalid_grant');
    assert.equal((await rpc(fx, first.body.access_token as string, { id: 1, method: 'ping' })).status, 401);
    // A token for another resource (the AS issues it) is refused by the MCP server.
    const otherCode = (await redirected({ ...base, resource: 'http://127.0.0.1:2/other' })).searchParams.get('code')!;
    const otherToken = await exchange(otherCode, { resource: 'http://127.0.0.1:2/other' });
    assert.equal(otherToken.status, 200, JSON.stringify(otherToken.body));
    const refused = await rpc(fx, otherToken.body.access_token as string, { id: 1, method: 'ping' });
    assert.equal(refused.status, 401);
    assert.match(
      refused.headers.get('www-authenticate')!,
      /error="invalid_token", error_description="token issued for another resource/,
    );
    const malformed = await fetch(fx.mcp, {
      method: 'POST',
      headers: { Authorization: 'Basic Zm9vOmJhcg==' },
      body: '{}',
    });
    assert.equal(malformed.status, 400);
    const password = await postForm(`${fx.issuer}/token`, { grant_type: 'password', client_id: clientId });
    assert.equal(password.body.error, 'unsupported_grant_type');
    const json = await fetch(`${fx.issuer}/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    assert.equal(((await json.json()) as Json).error, 'invalid_request');

    // Confidential clients: as registered, and only so.
    const confCode = async (id: string): Promise<string> =>
      (await redirected({ ...base, client_id: id, redirect_uri: 'http://127.0.0.1:9/callback' })).searchParams.get(
        'code',
      )!;
    const confExchange = (code: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
      postForm(
        `${fx.issuer}/token`,
        {
          grant_type: 'authorization_code',
          code,
          redirect_uri: 'http://127.0.0.1:9/callback',
          code_verifier: verifier,
          resource: fx.mcp,
          ...form,
        },
        headers,
      );
    const basic = (id: string, secret: string) => ({
      Authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
    });
    const noSecret = await confExchange(await confCode('conf'), { client_id: 'conf' });
    assert.equal(noSecret.status, 401);
    assert.equal(noSecret.body.error, 'invalid_client');
    assert.equal((await confExchange(await confCode('conf'), {}, basic('conf', 'wrong'))).body.error, 'invalid_client');
    assert.equal(
      (await confExchange(await confCode('conf'), { client_id: 'conf', client_secret: 's3cret' })).body.error,
      'invalid_client',
      'registered for client_secret_basic, not post',
    );
    const good = await confExchange(await confCode('conf'), {}, basic('conf', 's3cret'));
    assert.equal(good.status, 200, JSON.stringify(good.body));
    const viaPost = await confExchange(await confCode('post'), { client_id: 'post', client_secret: 'p0st' });
    assert.equal(viaPost.status, 200, JSON.stringify(viaPost.body));
  });

  test('step-up: a tool needing mcp:admin answers 403 insufficient_scope until the token has it', async (t) => {
    const fx = await fixtureFor(t, { stepUpTool: STEP_UP });
    const clientId = (await registerClient(fx)).client_id as string;
    const read = (await tokensFor(fx, clientId)).access_token as string;
    const sid = await session(fx, read);
    assert.ok((await toolNames(fx, read, sid)).includes(STEP_UP));
    const call = (token: string, name: string) =>
      rpc(fx, token, { id: 5, method: 'tools/call', params: { name, arguments: { text: 'hi' } } }, sid);
    const denied = await call(read, STEP_UP);
    assert.equal(denied.status, 403);
    const challenge = denied.headers.get('www-authenticate')!;
    assert.ok(
      challenge.startsWith(
        `Bearer error="insufficient_scope", scope="mcp:read mcp:admin", resource_metadata="${new URL(fx.mcp).origin}/.well-known/oauth-protected-resource/mcp"`,
      ),
      challenge,
    );
    assert.equal((await call(read, 'echo')).status, 200);
    const admin = (await tokensFor(fx, clientId, 'mcp:read mcp:admin')).access_token as string;
    const ok = await call(admin, STEP_UP);
    assert.equal(ok.status, 200);
    assert.match(await ok.text(), /"text":"hi"/);
    // A required scope set at run time: every request needs it.
    const set = await fetch(`${fx.admin}/options`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ requiredScope: 'mcp:write' }),
    });
    assert.equal(set.status, 200);
    const need = await call(admin, 'echo');
    assert.equal(need.status, 403);
    assert.match(need.headers.get('www-authenticate')!, /scope="mcp:write"/);
  });

  test('expiry and revocation: admin expire-access, RFC 7009 revocation, admin revoke-refresh', async (t) => {
    const fx = await fixtureFor(t, { tokenTtlSec: 600 });
    const clientId = (await registerClient(fx)).client_id as string;
    const tok = await tokensFor(fx, clientId);
    assert.equal(tok.expires_in, 600);
    const sid = await session(fx, tok.access_token as string);
    assert.deepEqual((await (await fetch(`${fx.admin}/expire-access`, { method: 'POST' })).json()) as Json, {
      expired: 1,
    });
    const expired = await rpc(fx, tok.access_token as string, { id: 6, method: 'tools/list' }, sid);
    assert.equal(expired.status, 401);
    assert.match(expired.headers.get('www-authenticate')!, /error="invalid_token", error_description="token expired"/);
    const refresh = (rt: string) =>
      postForm(`${fx.issuer}/token`, {
        grant_type: 'refresh_token',
        refresh_token: rt,
        client_id: clientId,
        resource: fx.mcp,
      });
    const fresh = await refresh(tok.refresh_token as string);
    assert.equal(fresh.status, 200);
    const access = fresh.body.access_token as string;
    assert.ok((await toolNames(fx, access, sid)).includes('echo'));
    // Revoking the access token.
    assert.equal((await postForm(`${fx.issuer}/revoke`, { token: access, client_id: clientId })).status, 200);
    assert.equal((await rpc(fx, access, { id: 7, method: 'tools/list' }, sid)).status, 401);
    // Revoking the refresh token: refresh fails.
    const rt = fresh.body.refresh_token as string;
    assert.equal((await postForm(`${fx.issuer}/revoke`, { token: rt, client_id: clientId })).status, 200);
    assert.equal((await refresh(rt)).body.error, 'invalid_grant');
    // Admin: every refresh token at once.
    const rt2 = (await tokensFor(fx, clientId)).refresh_token as string;
    assert.deepEqual((await (await fetch(`${fx.admin}/revoke-refresh`, { method: 'POST' })).json()) as Json, {
      revoked: 1,
    });
    assert.equal((await refresh(rt2)).body.error, 'invalid_grant');
  });
});
