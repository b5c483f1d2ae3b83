// The authorization extensions against the OAuth fixture (test/fixtures/oauth: a real authorization
// server, its MCP server and an enterprise IdP, signing with jose): DPoP-bound tokens with nonces at
// both servers and a bound refresh (RFC 9449), the JWT bearer grant from a workload's token file
// (SEP-1933), the enterprise grant — an ID token from a command, exchanged at the IdP for an ID-JAG
// (SEP-990) — and the person's sign-in at the IdP shared by two servers. Headless through the daemon
// and `mcpx` as a user runs them; then a grep of everything the run wrote for every token, assertion
// and the DPoP private key.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type JWK, calculateJwkThumbprint, decodeJwt, decodeProtectedHeader } from 'jose';
import type { SignInPort } from '../../src/upstream/auth/authorizer';
import { cliJs } from '../harness/gateway';
import { stopChild } from '../harness/paths';
import {
  type AdminLog,
  type Logged,
  type OAuthFixture,
  admin,
  cliRunner,
  consent,
  startOAuthFixture,
} from '../harness/oauth';
import { checkRecorded, gatewayFor } from '../harness/upstreams';
import { HttpClient } from '../harness/wire';

const cli = cliJs();
const dir = mkdtempSync(join(tmpdir(), 'mcpx-oauthx-'));
const env = {
  ...process.env,
  XDG_CONFIG_HOME: dir,
  XDG_STATE_HOME: dir,
  MCPX_PORT: '',
  DISPLAY: '',
  WAYLAND_DISPLAY: '',
};
const config = join(dir, 'mcp.json');
const store = join(dir, 'mcpx', 'oauth-tokens.json');
const workloadFile = join(dir, 'workload.jwt');
const fxDir = mkdtempSync(join(tmpdir(), 'mcpx-oauthx-fx-'));
const idTokenFile = join(fxDir, 'id-token');
const record = join(fxDir, 'frames.jsonl');
const ENTERPRISE_SECRET = 'enterprise-client-secret-0123456789';
/** Every mcpx run of this file, with what it printed (the daemon's log and the sign-ins' added). */
const { run, daemon: startDaemon, printed } = cliRunner(cli, env);

let fx: OAuthFixture;
let daemon: ChildProcess | undefined;
let configText = '';

const log = () => admin<AdminLog>(fx, 'log');
const mint = async (body: Record<string, unknown>) => (await admin<{ token: string }>(fx, 'mint', 'POST', body)).token;
const since = async (seq: number) => (await log()).requests.filter((r) => r.seq > seq);
const lastSeq = async () => (await log()).requests.at(-1)?.seq ?? 0;

const call = (server: string, text: string) => run(['call', server, 'echo', JSON.stringify({ text }), '--text']);

const b64sha256 = (s: string) => createHash('sha256').update(s).digest('base64url');

/** The DPoP proof a logged request carried: its header and claims. */
function proofOf(r: Logged) {
  const jwt = r.headers.dpop!;
  assert.ok(jwt, `${r.method} ${r.path} carried no DPoP proof`);
  return { header: decodeProtectedHeader(jwt), claims: decodeJwt(jwt) };
}

before(async () => {
  fx = await startOAuthFixture({
    dpop: 'required',
    dpopNonce: 'both',
    jwtBearer: true,
    record,
    preRegistered: [
      {
        client_id: 'mcpx-enterprise',
        client_secret: ENTERPRISE_SECRET,
        token_endpoint_auth_method: 'client_secret_basic',
        grant_types: [],
      },
    ],
  });
  writeFileSync(idTokenFile, await mint({ audience: 'idp-client' }));
  writeFileSync(workloadFile, await mint({ sub: 'system:serviceaccount:ci:agent' }));
  mkdirSync(join(dir, 'mcpx'), { recursive: true });
  configText = JSON.stringify({
    servers: {
      dp: { type: 'http', url: fx.mcp, auth: { type: 'oauth' } },
      wl: {
        type: 'http',
        url: fx.mcp,
        auth: { type: 'oauth', grant: 'jwt_bearer', assertion: { file: workloadFile } },
      },
      ent: {
        type: 'http',
        url: fx.mcp,
        auth: {
          type: 'oauth',
          grant: 'enterprise',
          clientId: 'mcpx-enterprise',
          clientSecret: ENTERPRISE_SECRET,
          enterprise: {
            issuer: fx.idp,
            clientId: 'mcpx-idp',
            idToken: {
              command: process.execPath,
              args: ['-e', `process.stdout.write(require('fs').readFileSync(${JSON.stringify(idTokenFile)}, 'utf8'))`],
            },
          },
        },
      },
    },
  });
  writeFileSync(config, configText);
  daemon = await startDaemon(config);
});

after(async () => {
  if (daemon) await stopChild(daemon);
  await fx?.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(fxDir, { recursive: true, force: true });
});

describe('DPoP-bound tokens (RFC 9449)', () => {
  test('a sign-in gets a DPoP-bound token: its token request proves the key, retried once with the nonce', async () => {
    const child = spawn(process.execPath, [cli, 'auth', 'login', 'dp', '--no-browser', '--config', config], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    const url = await new Promise<string>((resolve) =>
      child.stdout!.on('data', (d) => {
        out += d;
        const m = /^(http:\/\/\S+\/authorize\?\S+)$/m.exec(out);
        if (m) resolve(m[1]!);
      }),
    );
    await fetch(await consent(await fetch(url, { redirect: 'manual' })));
    assert.equal(await exited, 0, out);
    printed.push(out);
    const token = (await log()).requests.filter((r) => r.path === '/token');
    // The first proof had no nonce: 400 use_dpop_nonce; the same request again with it (RFC 9449 §8).
    assert.deepEqual(
      token.map((r) => [r.params.grant_type, r.status]),
      [
        ['authorization_code', 400],
        ['authorization_code', 200],
      ],
    );
    const [first, second] = token.map(proofOf);
    assert.equal(first!.claims.nonce, undefined);
    assert.equal(second!.claims.nonce, (await admin<{ as: string }>(fx, 'nonces')).as);
    assert.equal(second!.claims.htm, 'POST');
    assert.equal(second!.claims.htu, `${fx.issuer}/token`);
    assert.equal(second!.header.typ, 'dpop+jwt');
    assert.equal(second!.header.alg, 'ES256');
    assert.equal((second!.header.jwk as JWK).d, undefined, 'the proof carries the public key only');
    // The key is the upstream's, kept with its sign-in in the owner-only store; the token is bound to it.
    assert.equal(statSync(store).mode & 0o777, 0o600);
    const kept = JSON.parse(JSON.parse(readFileSync(store, 'utf8'))['mcpx.oauth/dp']);
    assert.equal(kept.token_type, 'dpop');
    assert.ok(kept.dpop_key.d, 'the private key is kept');
    const jkt = await calculateJwkThumbprint(second!.header.jwk as JWK);
    assert.equal(await calculateJwkThumbprint(kept.dpop_key as JWK), jkt);
    const bound = (await log()).tokens.filter((t) => t.jkt === jkt);
    assert.deepEqual(bound.map((t) => t.kind).sort(), ['access', 'refresh']);
    const status = await run(['auth', 'status', '--config', config]);
    assert.match(
      status.stdout,
      /^dp\tsigned in at 127\.0\.0\.1:\d+, scopes: mcp:read, expires in \d+ min, DPoP-bound, renews itself$/m,
    );
    assert.match(
      status.stdout,
      new RegExp(`^wl\tsigns in by itself with the workload token from the file ${workloadFile}$`, 'm'),
    );
  });

  test('each request to the MCP server: the DPoP scheme and a fresh proof (htm, htu, ath, jti), the nonce after one retry', async () => {
    const from = await lastSeq();
    const r = await call('dp', 'bound');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /bound/);
    const mcp = (await since(from)).filter((x) => x.server === 'mcp' && x.path === '/mcp');
    const kept = JSON.parse(JSON.parse(readFileSync(store, 'utf8'))['mcpx.oauth/dp']);
    assert.ok(mcp.length >= 2);
    for (const x of mcp) {
      assert.equal(x.headers.authorization, `DPoP ${kept.access_token}`);
      const p = proofOf(x);
      assert.equal(p.claims.htm, x.method);
      assert.equal(p.claims.htu, fx.mcp);
      assert.equal(p.claims.ath, b64sha256(kept.access_token));
      assert.equal(await calculateJwkThumbprint(p.header.jwk as JWK), await calculateJwkThumbprint(kept.dpop_key));
    }
    const jtis = mcp.map((x) => proofOf(x).claims.jti);
    assert.equal(new Set(jtis).size, jtis.length, 'a fresh jti on every request');
    // The daemon's first proof had no nonce: 401 use_dpop_nonce, then the request again with the server's.
    assert.equal(mcp[0]!.status, 401);
    assert.equal(proofOf(mcp[0]!).claims.nonce, undefined);
    const nonce = proofOf(mcp[1]!).claims.nonce;
    assert.equal(nonce, (await admin<{ rs: string }>(fx, 'nonces')).rs);
    // (A 400 is the era probe's server/discover, which a 2025-06-18 server does not know.)
    assert.deepEqual(
      mcp.slice(1).filter((x) => x.status === 401 || proofOf(x).claims.nonce !== nonce),
      [],
    );
  });

  test('an expired DPoP-bound token is refreshed with a proof of the same key, the rotated nonce retried once', async () => {
    const kept = JSON.parse(JSON.parse(readFileSync(store, 'utf8'))['mcpx.oauth/dp']);
    const jkt = await calculateJwkThumbprint(kept.dpop_key);
    await admin(fx, 'rotate-nonces', 'POST');
    await admin(fx, 'expire-access', 'POST');
    const from = await lastSeq();
    const r = await call('dp', 'refreshed');
    assert.equal(r.code, 0, r.stderr);
    const refreshes = (await since(from)).filter((x) => x.path === '/token');
    assert.deepEqual(
      refreshes.map((x) => [x.params.grant_type, x.status]),
      [
        ['refresh_token', 400],
        ['refresh_token', 200],
      ],
    );
    for (const x of refreshes) assert.equal(await calculateJwkThumbprint(proofOf(x).header.jwk as JWK), jkt);
    const now = JSON.parse(JSON.parse(readFileSync(store, 'utf8'))['mcpx.oauth/dp']);
    assert.notEqual(now.access_token, kept.access_token);
    assert.equal((await log()).tokens.find((t) => t.value === now.access_token)?.jkt, jkt);
  });
});

describe('workload identity: the JWT bearer grant (SEP-1933)', () => {
  test('the workload JWT from its file gets a token without any sign-in; the token is not stored', async () => {
    const from = await lastSeq();
    const r = await call('wl', 'workload');
    assert.equal(r.code, 0, r.stderr);
    const token = (await since(from)).filter((x) => x.path === '/token' && x.status === 200);
    assert.equal(token.length, 1);
    const t = token[0]!;
    assert.equal(t.params.grant_type, 'urn:ietf:params:oauth:grant-type:jwt-bearer');
    assert.equal(t.params.assertion, readFileSync(workloadFile, 'utf8'));
    assert.equal(t.params.resource, fx.mcp);
    // No client: no registration, no client_id, no Authorization header (the JWT is the credential).
    assert.equal(t.params.client_id, undefined);
    assert.equal(t.headers.authorization, undefined);
    assert.ok(t.headers.dpop, 'the workload token is DPoP-bound as well');
    assert.equal((await since(from)).filter((x) => x.path === '/register' || x.path === '/authorize').length, 0);
    assert.equal(JSON.parse(readFileSync(store, 'utf8'))['mcpx.oauth/wl'], undefined);
  });

  test('the file is read afresh: after expiry the next grant presents the rotated JWT', async () => {
    const rotated = await mint({ sub: 'system:serviceaccount:ci:agent' });
    writeFileSync(workloadFile, rotated);
    await admin(fx, 'expire-access', 'POST');
    const from = await lastSeq();
    const r = await call('wl', 'rotated');
    assert.equal(r.code, 0, r.stderr);
    const grants = (await since(from)).filter((x) => x.path === '/token' && x.status === 200);
    assert.deepEqual(
      grants.map((x) => x.params.assertion),
      [rotated],
    );
  });

  test('a refused JWT fails the call with the server error, once: no retry, no other grant', async () => {
    writeFileSync(workloadFile, await mint({ ttlSec: -120 }));
    await admin(fx, 'expire-access', 'POST');
    const from = await lastSeq();
    const r = await call('wl', 'expired');
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /the JWT bearer grant failed: invalid_grant/);
    const asked = (await since(from)).filter((x) => x.server !== 'mcp');
    assert.deepEqual(
      asked.filter((x) => x.path === '/token').map((x) => x.status),
      [400],
    );
    assert.equal(asked.filter((x) => x.path === '/authorize' || x.path === '/register').length, 0);
  });
});

describe('enterprise-managed authorization: the ID-JAG (SEP-990)', () => {
  test('the ID token from a command is exchanged at the IdP, then the JWT bearer grant with the client', async () => {
    const from = await lastSeq();
    const r = await call('ent', 'enterprise');
    assert.equal(r.code, 0, r.stderr);
    const seen = await since(from);
    const exchange = seen.filter((x) => x.server === 'idp' && x.path === '/idp/token');
    assert.equal(exchange.length, 1);
    const e = exchange[0]!.params;
    assert.equal(e.grant_type, 'urn:ietf:params:oauth:grant-type:token-exchange');
    assert.equal(e.requested_token_type, 'urn:ietf:params:oauth:token-type:id-jag');
    assert.equal(e.subject_token_type, 'urn:ietf:params:oauth:token-type:id_token');
    assert.equal(e.subject_token, readFileSync(idTokenFile, 'utf8'));
    assert.equal(e.audience, fx.issuer);
    assert.equal(e.resource, fx.mcp);
    assert.equal(e.client_id, 'mcpx-idp');
    const grant = seen.filter((x) => x.path === '/token' && x.status === 200);
    assert.equal(grant.length, 1);
    const g = grant[0]!;
    assert.equal(g.params.grant_type, 'urn:ietf:params:oauth:grant-type:jwt-bearer');
    assert.match(g.headers.authorization!, /^Basic /);
    const jag = g.params.assertion as string;
    assert.equal(decodeProtectedHeader(jag).typ, 'oauth-id-jag+jwt');
    const claims = decodeJwt(jag);
    assert.equal(claims.client_id, 'mcpx-enterprise');
    assert.equal(claims.resource, fx.mcp);
    assert.equal(claims.aud, fx.issuer);
    assert.equal(claims.iss, fx.idp);
  });

  test('without an ID token source the person signs in at the IdP once, for every server of that IdP', async () => {
    const opened: string[] = [];
    const person: SignInPort = {
      available: () => true,
      async open(req) {
        opened.push(req.issuer);
        const res = await fetch(req.url, { redirect: 'manual' });
        await fetch(res.headers.get('location')!);
      },
    };
    const def = {
      type: 'http',
      url: fx.mcp,
      auth: {
        type: 'oauth',
        grant: 'enterprise',
        clientId: 'mcpx-enterprise',
        clientSecret: ENTERPRISE_SECRET,
        enterprise: { issuer: fx.idp, clientId: 'mcpx-idp' },
      },
    };
    const gw = await gatewayFor({ e1: def, e2: def }, {}, {}, { auth: { person } });
    try {
      const from = await lastSeq();
      const c = new HttpClient(gw.url, '2025-11-25');
      await c.initialize();
      for (const server of ['e1', 'e2']) {
        const r = await c.request('tools/call', {
          name: 'mcpx_call',
          arguments: { server, tool: 'echo', arguments: { text: server } },
        });
        assert.match(JSON.stringify(r.result), new RegExp(`"${server}"`), JSON.stringify(r));
      }
      assert.deepEqual(opened, [fx.idp]);
      const idp = (await since(from)).filter((x) => x.server === 'idp');
      assert.equal(idp.filter((x) => x.path === '/idp/authorize').length, 1);
      assert.equal(idp.filter((x) => x.params.grant_type === 'authorization_code').length, 1);
      assert.equal(idp.filter((x) => String(x.params.grant_type).endsWith('token-exchange')).length, 2);
      assert.match(String(idp.find((x) => x.path === '/idp/authorize')!.params.scope), /\bopenid\b/);
    } finally {
      await gw.close();
    }
  });
});

describe('nothing leaked', () => {
  test('no token, assertion, ID-JAG or DPoP private key is in any output, log or file but the owner-only store', async () => {
    const { secrets } = await log();
    const kept = JSON.parse(JSON.parse(readFileSync(store, 'utf8'))['mcpx.oauth/dp']);
    const all = [...secrets, kept.dpop_key.d as string, ENTERPRISE_SECRET];
    assert.ok(secrets.length >= 10, `issued: ${secrets.length}`);
    assert.equal(readFileSync(config, 'utf8'), configText, 'the config file is as written');
    const texts: Array<[string, string]> = printed.map((p, i) => [`output #${i}`, p]);
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (p !== store && p !== config && p !== workloadFile) texts.push([p, readFileSync(p, 'utf8')]);
      }
    };
    walk(dir);
    for (const s of all)
      for (const [where, text] of texts) assert.ok(!text.includes(s), `${s.slice(0, 8)}… found in ${where}`);
    checkRecorded(record, '2025-06-18');
  });
});
