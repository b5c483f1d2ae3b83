// The OAuth fixture (test/fixtures/oauth) as a process a test starts, its admin endpoint, the client side
// of a PKCE flow through its consent page, done by hand with fetch, and `mcpx` run as a user runs it with
// everything it printed kept for a test's grep for secrets.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { TestContext } from 'node:test';
import { repoRoot } from '../fixtures/upstream/client';

export interface OAuthFixture {
  child: ChildProcess;
  issuer: string;
  mcp: string;
  admin: string;
  /** The enterprise IdP's issuer (test/fixtures/oauth/idp.ts). */
  idp: string;
  /** Closes stdin (the fixture exits on it), SIGKILL after 2 s; resolves once it exited. */
  stop(): Promise<void>;
}

/** Starts `node build/test/fixtures/oauth/server.js --options-json …` and waits for its JSON line. */
export async function startOAuthFixture(options: Record<string, unknown> = {}): Promise<OAuthFixture> {
  const script = join(repoRoot(), 'build', 'test', 'fixtures', 'oauth', 'server.js');
  const child = spawn(process.execPath, [script, '--options-json', JSON.stringify(options)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin?.end();
    const t = setTimeout(() => child.kill('SIGKILL'), 2000);
    await exited;
    clearTimeout(t);
  };
  const line = await new Promise<string>((res, rej) => {
    createInterface({ input: child.stdout! }).once('line', res);
    child.once('exit', (code) => rej(new Error(`oauth fixture exited with ${code}`)));
  });
  const ready = JSON.parse(line) as { issuer: string; mcp: string; admin: string; idp: string };
  return { child, ...ready, stop };
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** GET /authorize without following redirects. */
export function authorizeRequest(issuer: string, params: Record<string, string>): Promise<Response> {
  return fetch(`${issuer}/authorize?${new URLSearchParams(params)}`, { redirect: 'manual' });
}

/** Approves (or denies) the consent page of a GET /authorize answer: resolves with the redirect Location. */
export async function consent(page: Response, decision: 'approve' | 'deny' = 'approve'): Promise<URL> {
  const html = await page.text();
  const txn = /name="txn" value="([^"]+)"/.exec(html)?.[1];
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (page.status !== 200 || !txn || !action) throw new Error(`not a consent page (${page.status}): ${html}`);
  const res = await fetch(action, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ txn, decision }),
    redirect: 'manual',
  });
  const location = res.headers.get('location');
  if (res.status !== 302 || !location) throw new Error(`consent answered ${res.status}: ${await res.text()}`);
  return new URL(location);
}

type Json = Record<string, unknown>;

/** The redirect URI the tests' clients register. */
export const REDIRECT = 'http://127.0.0.1:7777/callback';

/** The OAuth fixture for one test, stopped after it. */
export async function fixtureFor(t: TestContext, options: Json = {}): Promise<OAuthFixture> {
  const fx = await startOAuthFixture(options);
  t.after(() => fx.stop());
  return fx;
}

export async function postForm(url: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: (text ? JSON.parse(text) : {}) as Json };
}

export async function registerClient(fx: OAuthFixture, metadata: Json = {}): Promise<Json> {
  const r = await fetch(`${fx.issuer}/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test Client',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      ...metadata,
    }),
  });
  assert.equal(r.status, 201);
  return (await r.json()) as Json;
}

/** The whole flow through the consent page: tokens for `scope`. */
export async function tokensFor(fx: OAuthFixture, clientId: string, scope = 'mcp:read'): Promise<Json> {
  const { verifier, challenge } = pkce();
  const page = await authorizeRequest(fx.issuer, {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: fx.mcp,
    scope,
    state: 's1',
  });
  const back = await consent(page);
  const r = await postForm(`${fx.issuer}/token`, {
    grant_type: 'authorization_code',
    code: back.searchParams.get('code')!,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
    resource: fx.mcp,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

/** One request the fixture logged (its admin log), with the headers it came with. */
export interface Logged {
  seq: number;
  server: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  params: Record<string, unknown>;
  status: number;
}
/** The fixture's admin log: every secret it issued, every request, every token. */
export interface AdminLog {
  secrets: string[];
  requests: Logged[];
  tokens: Array<{
    kind: string;
    grant: string;
    value: string;
    clientId: string;
    jkt?: string;
    revoked: boolean;
    scope: string[];
  }>;
}

/** A call of the fixture's admin endpoint (`log`, `mint`, `expire-access`, …): its JSON answer. */
export async function admin<T = unknown>(fx: OAuthFixture, path: string, method = 'GET', body?: unknown): Promise<T> {
  const res = await fetch(`${fx.admin}/${path}`, {
    method,
    headers: body ? { 'Content-Type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  return (await res.json()) as T;
}

/** `mcpx ARGS` (dist/cli.js) in `env`; what every run printed is kept in `printed`, for the grep at the end.
 *  `daemon(config)` is `mcpx daemon` on that config once it listens, its log kept in `printed` as it exits. */
export function cliRunner(
  cli: string,
  env: NodeJS.ProcessEnv,
): {
  run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }>;
  daemon(config: string): Promise<ChildProcess>;
  printed: string[];
} {
  const printed: string[] = [];
  const run = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => {
        printed.push(stdout, stderr);
        resolve({ code, stdout, stderr });
      });
    });
  const daemon = async (config: string): Promise<ChildProcess> => {
    const child = spawn(process.execPath, [cli, 'daemon', '--port', '0', '--config', config], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    child.once('exit', () => printed.push(err));
    const line = await new Promise<string>((resolve) =>
      createInterface({ input: child.stdout! }).once('line', resolve),
    );
    assert.match(line, /mcpx listening on /);
    return child;
  };
  return { run, daemon, printed };
}
