// Signing in to an OAuth upstream end to end (docs/gateway.md "Signing in to upstreams"): the local
// authorization server and protected MCP server of test/fixtures/oauth (one real process), a headless
// daemon and `mcpx auth` as a user runs them (dist/cli.js), a test that follows the printed URL through
// the consent page. Then step-up with a person in the gateway's process, and a grep of everything the
// run wrote for every token and client secret the authorization server issued.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { SignInPort } from '../../src/upstream/auth/authorizer';
import { cliJs } from '../harness/gateway';
import { stopChild } from '../harness/paths';
import { type AdminLog, type OAuthFixture, admin, cliRunner, consent, startOAuthFixture } from '../harness/oauth';
import { checkRecorded, gatewayFor } from '../harness/upstreams';
import { HttpClient } from '../harness/wire';

const cli = cliJs();
const dir = mkdtempSync(join(tmpdir(), 'mcpx-oauth-'));
const env = {
  ...process.env,
  XDG_CONFIG_HOME: dir,
  XDG_STATE_HOME: dir,
  MCPX_PORT: '',
  DISPLAY: '',
  WAYLAND_DISPLAY: '',
};
const config = join(dir, 'mcp.json');
// The protected server's own record of what it received (its request headers, the bearer among them):
// the server's file, so outside the directory the grep reads.
const fxDir = mkdtempSync(join(tmpdir(), 'mcpx-oauth-fx-'));
const record = join(fxDir, 'frames.jsonl');
/** Every mcpx run of this file; everything the processes printed, for the grep at the end. */
const { run, daemon: startDaemon, printed } = cliRunner(cli, env);

let fx: OAuthFixture;
let daemon: ChildProcess | undefined;

const asLog = () => admin<AdminLog>(fx, 'log');
const asRequests = async (path: string) => (await asLog()).requests.filter((r) => r.server === 'as' && r.path === path);

/** What a browser does with the authorization URL: the consent page, Approve, back to the redirect. */
async function followInBrowser(url: string): Promise<string> {
  const page = await fetch(url, { redirect: 'manual' });
  const back = await consent(page);
  const landing = await fetch(back);
  return landing.text();
}

const call = (text: string) => run(['call', 'fx', 'echo', JSON.stringify({ text }), '--text']);

before(async () => {
  fx = await startOAuthFixture({ stepUpTool: 'admin_tool', record });
  mkdirSync(join(dir, 'mcpx'), { recursive: true });
  // No auth block: the server's 401 with a Bearer challenge starts discovery on its own.
  writeFileSync(config, JSON.stringify({ servers: { fx: { type: 'http', url: fx.mcp } } }));
  daemon = await startDaemon(config);
});

after(async () => {
  if (daemon) await stopChild(daemon);
  await fx?.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(fxDir, { recursive: true, force: true });
});

describe('headless: mcpx auth and the daemon', () => {
  test('before any sign-in a call fails at once, naming the server and the command that fixes it', async () => {
    const r = await call('hello');
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /upstream fx needs a sign-in/);
    assert.match(r.stderr, /mcpx auth login fx/);
    // Nobody was sent to sign in.
    assert.equal((await asRequests('/authorize')).length, 0);
  });

  test('mcpx auth login prints the URL, the test follows it, and the sign-in is stored 0600', async () => {
    const child = spawn(process.execPath, [cli, 'auth', 'login', 'fx', '--no-browser', '--config', config], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (d) => {
        stdout += d;
        const m = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(stdout);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (c) => reject(new Error(`login exited ${c}: ${stdout}${stderr}`)));
    });
    assert.match(stdout, /Sign in to fx at 127\.0\.0\.1:\d+/);
    const landing = await followInBrowser(url);
    assert.match(landing, /Signed in/);
    assert.equal(await exited, 0, stdout + stderr);
    printed.push(stdout, stderr);
    assert.match(stdout, /Signed in to fx; the connection works/);
    // PKCE S256 and the resource indicator on the authorization and the token request (RFC 8707).
    const [authz] = await asRequests('/authorize');
    assert.equal(authz!.params.code_challenge_method, 'S256');
    assert.equal(authz!.params.resource, fx.mcp);
    assert.equal(authz!.params.scope, 'mcp:read');
    const tokenReqs = await asRequests('/token');
    assert.equal(tokenReqs.at(-1)!.params.grant_type, 'authorization_code');
    assert.equal(tokenReqs.at(-1)!.params.resource, fx.mcp);
    assert.ok(tokenReqs.at(-1)!.params.code_verifier);
    const file = join(dir, 'mcpx', 'oauth-tokens.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const status = await run(['auth', 'status', '--config', config]);
    assert.match(
      status.stdout,
      /^fx\tsigned in at 127\.0\.0\.1:\d+, scopes: mcp:read, expires in \d+ min, renews itself$/m,
    );
  });

  test('the running daemon uses that sign-in: a call succeeds', async () => {
    const r = await call('after sign-in');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /after sign-in/);
  });

  test('an expired access token is refreshed on the 401, and the call succeeds', async () => {
    const before = (await asRequests('/token')).length;
    await admin(fx, 'expire-access', 'POST');
    const r = await call('after expiry');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /after expiry/);
    const tokenReqs = await asRequests('/token');
    assert.equal(tokenReqs.length, before + 1);
    assert.equal(tokenReqs.at(-1)!.params.grant_type, 'refresh_token');
    assert.equal(tokenReqs.at(-1)!.params.resource, fx.mcp);
  });

  test('a revoked refresh token: the call fails at once with "sign in again"', async () => {
    await admin(fx, 'revoke-refresh', 'POST');
    await admin(fx, 'expire-access', 'POST');
    const r = await call('after revocation');
    assert.equal(r.code, 2, r.stdout);
    assert.match(
      r.stderr,
      /upstream fx needs a sign-in \(its sign-in expired and could not be renewed, so sign in again\)/,
    );
    assert.match(r.stderr, /mcpx auth login fx/);
    const status = await run(['auth', 'status', '--config', config]);
    assert.match(status.stdout, /^fx\tnot signed in$/m);
  });

  test('mcpx auth logout revokes the tokens of a new sign-in and forgets it', async () => {
    const child = spawn(process.execPath, [cli, 'auth', 'login', 'fx', '--no-browser', '--config', config], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    const url = await new Promise<string>((resolve) =>
      child.stdout!.on('data', (d) => {
        out += d;
        const m = /^(http:\/\/\S+\/authorize\?\S+)$/m.exec(out);
        if (m) resolve(m[1]!);
      }),
    );
    await followInBrowser(url);
    assert.equal(await exited, 0);
    printed.push(out);
    const r = await run(['auth', 'logout', 'fx', '--config', config]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Signed out of fx; its tokens were revoked/);
    assert.ok((await asRequests('/revoke')).length >= 1);
    const live = (await asLog()).tokens.filter((t) => !t.revoked && t.kind !== 'code');
    assert.deepEqual(
      live.filter((t) => t.kind === 'refresh'),
      [],
    );
    const status = await run(['auth', 'status', '--config', config]);
    assert.match(status.stdout, /^fx\tnot signed in$/m);
  });
});

describe('in the gateway process, with a person', () => {
  test('a tool that needs a wider scope: step-up to the union of the scopes, then the call succeeds', async () => {
    const opened: string[][] = [];
    const person: SignInPort = {
      available: () => true,
      async open(req) {
        opened.push(req.scopes);
        await followInBrowser(req.url.href);
      },
    };
    const gw = await gatewayFor({ fx: { type: 'http', url: fx.mcp } }, {}, {}, { auth: { person } });
    try {
      const c = new HttpClient(gw.url, '2025-11-25');
      await c.initialize();
      const plain = await c.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'fx', tool: 'echo', arguments: { text: 'one' } },
      });
      assert.equal((plain.result as { isError?: boolean }).isError, undefined, JSON.stringify(plain));
      assert.deepEqual(opened, [['mcp:read']]);
      const admin_ = await c.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'fx', tool: 'admin_tool', arguments: { text: 'two' } },
      });
      assert.match(JSON.stringify(admin_.result), /two/);
      // The step-up asked for what it had plus what the challenge named (docs/protocol.md, the step-up reading).
      assert.deepEqual(opened, [['mcp:read'], ['mcp:read', 'mcp:admin']]);
      assert.equal(gw.g.signInState('fx'), 'signed-in');
    } finally {
      await gw.close();
    }
  });
});

describe('nothing leaked', () => {
  test('no token, code or client secret the authorization server issued is in any file or output of the run', async () => {
    const { secrets } = await asLog();
    assert.ok(secrets.length >= 6, `issued: ${secrets.length}`);
    const texts: Array<[string, string]> = printed.map((p, i) => [`output #${i}`, p]);
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (e.isDirectory()) walk(p);
        // The sign-in store is where tokens belong (0600, checked above); it holds none after logout.
        else texts.push([p, readFileSync(p, 'utf8')]);
      }
    };
    walk(dir);
    for (const s of secrets)
      for (const [where, text] of texts) assert.ok(!text.includes(s), `${s.slice(0, 6)}… found in ${where}`);
    // Every frame mcpx sent the protected server is valid for its revision.
    checkRecorded(record, '2025-06-18');
  });
});
