// mcpx as a protected resource in front of a real authorization server library nobody here wrote:
// oidc-provider on loopback, its metadata found by OpenID Connect Discovery (it serves no RFC 8414
// document), JWT access tokens of the client credentials grant bound to mcpx by resource indicators
// (RFC 8707), opaque ones for a profile's endpoint answered by its introspection endpoint (RFC 7662), a
// groups claim it adds, and a token it issued for another resource.
import assert from 'node:assert/strict';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { exportJWK, generateKeyPair } from 'jose';
import { type TestGateway, fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';

const up = () => fixtureCommand(['--rev', '2025-11-25', '--name', 'up']);
const OTHER = 'https://api.elsewhere.example/';
const CLIENTS = { alice: 'alice-agent', bob: 'bob-agent', rs: 'mcpx-rs' };

let http: Server;
let issuer: string;
let gw: TestGateway;

/** The gateway's own resource identifiers: known once it listens, read by the provider per request. */
const resources = { mcp: '', ops: '' };

before(async () => {
  http = createServer();
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const { default: Provider, errors } = await import('oidc-provider');
  const secret = (id: string) => `${id}-secret-of-at-least-32-characters`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENTS.alice,
        client_secret: secret(CLIENTS.alice),
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        scope: 'mcp ops',
      },
      {
        client_id: CLIENTS.bob,
        client_secret: secret(CLIENTS.bob),
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        scope: 'mcp ops',
      },
      {
        client_id: CLIENTS.rs,
        client_secret: secret(CLIENTS.rs),
        grant_types: [],
        redirect_uris: [],
        response_types: [],
      },
    ],
    scopes: ['mcp', 'ops'],
    ttl: { ClientCredentials: 300 },
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] },
    features: {
      clientCredentials: { enabled: true },
      // Only mcpx (the resource server) may introspect.
      introspection: {
        enabled: true,
        allowedPolicy: (_ctx: unknown, client: { clientId: string }) => client.clientId === CLIENTS.rs,
      },
      resourceIndicators: {
        enabled: true,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          // mcpx's own endpoint gets JWTs; a profile's endpoint opaque tokens; another API JWTs of its own.
          if (indicator === resources.mcp || indicator === OTHER)
            return { scope: 'mcp ops', audience: indicator, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } };
          if (indicator === resources.ops)
            return { scope: 'mcp ops', audience: indicator, accessTokenFormat: 'opaque' };
          throw new errors.InvalidTarget();
        },
      },
    },
    extraTokenClaims: (_ctx: unknown, token: { clientId?: string }) => ({
      groups: token.clientId === CLIENTS.alice ? ['staff', 'admins'] : ['staff'],
    }),
  });
  http.on('request', provider.callback());
  gw = await gatewayFor(
    { up: up() },
    {
      'auth.issuer': issuer,
      'auth.scopes': ['mcp'],
      'auth.clientId': CLIENTS.rs,
      'auth.clientSecret': secret(CLIENTS.rs),
      'mcp.passthrough': ['up'],
    },
    {
      permissions: {
        rules: [
          { server: 'up', tool: 'add', client: { claims: { groups: 'admins' } }, action: 'allow' },
          { server: 'up', tool: 'add', action: 'deny' },
        ],
      },
      profiles: {
        ops: { servers: ['up'], mode: 'passthrough', access: { claims: { groups: 'admins' }, scopes: ['ops'] } },
      },
    },
  );
  resources.mcp = gw.bare;
  resources.ops = `${gw.bare}/ops`;
  /** Store the secret for the token requests below. */
  tokenOf = async (who: keyof typeof CLIENTS, resource: string, scope: string) => {
    const res = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${Buffer.from(`${CLIENTS[who]}:${secret(CLIENTS[who])}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource }),
    });
    const body = (await res.json()) as Json;
    assert.equal(res.status, 200, JSON.stringify(body));
    return String(body.access_token);
  };
});
after(async () => {
  await gw?.close();
  http?.closeAllConnections();
  await new Promise((r) => http?.close(r));
  killAll();
});

let tokenOf: (who: keyof typeof CLIENTS, resource: string, scope: string) => Promise<string>;
const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
const textOf = (r: Json | undefined): string =>
  ((r?.content as Json[] | undefined) ?? []).map((b) => String(b.text ?? '')).join('');
const whoami = async (token: string, path = '/v1/whoami') =>
  (await (await fetch(new URL(path, gw.bare), { headers: bearer(token) })).json()) as Json;

describe('oidc-provider as the issuer', () => {
  test("its JWT access tokens: the client's subject is the identity, its groups claim matched by a rule", async () => {
    const alice = await tokenOf('alice', resources.mcp, 'mcp');
    const bob = await tokenOf('bob', resources.mcp, 'mcp');
    assert.equal(alice.split('.').length, 3, 'a JWT');
    const seen = await whoami(alice);
    assert.equal(seen.identity, `oauth:${issuer}#${CLIENTS.alice}`);
    assert.deepEqual((seen.principal as Json).scopes, ['mcp']);
    assert.equal(((await whoami(bob)).principal as Json).subject, CLIENTS.bob);
    const call = (token: string) =>
      new HttpClient(gw.bare, '2026-07-28', { headers: bearer(token) }).request('tools/call', {
        name: 'add',
        arguments: { a: 1, b: 2 },
      });
    assert.equal(textOf((await call(alice)).result), '{"sum":3}');
    assert.equal((await call(bob)).result?.isError, true, 'not in the admins group: denied');
    const legacy = new HttpClient(gw.bare, '2025-11-25', { headers: bearer(alice) });
    assert.equal((await legacy.initialize()).reply.status, 200);
  });

  test('its opaque tokens for a profile, by introspection: admitted by claim and scope, or 403', async () => {
    const alice = await tokenOf('alice', resources.ops, 'mcp ops');
    assert.notEqual(alice.split('.').length, 3, 'opaque');
    const c = new HttpClient(resources.ops, '2026-07-28', { headers: bearer(alice) });
    assert.equal((await c.request('server/discover')).reply.status, 200);
    assert.equal((await whoami(alice, '/v1/profiles/ops/v1/whoami')).identity, `oauth:${issuer}#${CLIENTS.alice}`);
    const bob = await tokenOf('bob', resources.ops, 'mcp ops');
    const refused = await fetch(resources.ops, {
      method: 'POST',
      headers: { ...bearer(bob), 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    assert.equal(refused.status, 403, "bob is not in the profile's group");
    const short = await tokenOf('alice', resources.ops, 'mcp');
    const r = await fetch(new URL('/v1/profiles/ops/v1/whoami', gw.bare), { headers: bearer(short) });
    assert.equal(r.status, 403);
    assert.match(r.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);
    assert.match(r.headers.get('www-authenticate') ?? '', /scope="mcp ops"/);
  });

  test('a token it issued for another resource is refused (401, its aud)', async () => {
    const other = await tokenOf('alice', OTHER, 'mcp');
    const res = await fetch(new URL('/v1/whoami', gw.bare), { headers: bearer(other) });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token", error_description="[^"]*aud/);
  });
});
