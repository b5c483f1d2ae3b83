// `mcpx auth whoami --endpoint URL --token T`: how the gateway at URL sees an access token
// (docs/security.md "Two ways in") — asked of the gateway itself (GET /v1/whoami, or a profile's
// /v1/profiles/<name>/v1/whoami), so the answer is its verifier's: the identity that owns the token's work,
// its issuer, subject, scopes and claims; or the refusal a client would get. Everything the token says is
// printed escaped: it is the issuer's text.
import { readFileSync } from 'node:fs';
import { type Args, UsageError } from './args';
import { printable } from '../kit/printable';
import { out } from './output';

export async function whoami(a: Args): Promise<void> {
  if (a.positional.length > 1)
    throw new UsageError(`mcpx auth whoami: unexpected argument ${JSON.stringify(a.positional[1])}`);
  if (!a.endpoint || !a.token)
    throw new UsageError('mcpx auth whoami needs --endpoint URL and --token TOKEN (or - for stdin)');
  const token = a.token === '-' ? readFileSync(0, 'utf8').trim() : a.token;
  const endpoint = new URL(a.endpoint);
  // /mcp/<profile> (or /mcp/<secret>/<profile>) is a profile's endpoint: its own audience and access.
  const segments = endpoint.pathname
    .replace(/^\/mcp\/?/, '')
    .split('/')
    .filter(Boolean);
  const profile = segments.length ? segments[segments.length - 1] : undefined;
  const at = new URL(profile ? `/v1/profiles/${profile}/v1/whoami` : '/v1/whoami', endpoint);
  const res = await fetch(at, { headers: { Authorization: `Bearer ${token}` }, redirect: 'error' });
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    const err = body.error;
    const message =
      typeof err === 'string'
        ? err
        : typeof err === 'object' && err
          ? String((err as { message?: unknown }).message)
          : '';
    const challenge = res.headers.get('www-authenticate');
    throw new Error(
      printable(`the gateway refuses the token (HTTP ${res.status}): ${message}${challenge ? ` [${challenge}]` : ''}`),
    );
  }
  if (body.via !== 'token') return out('the gateway sees the person (the endpoint secret), not a token');
  const p = body.principal as {
    issuer: string;
    subject: string;
    scopes: string[];
    clientId?: string;
    expiresAt?: number;
    claims: unknown;
  };
  const rows: Array<[string, string]> = [
    ['identity', escaped(String(body.identity))],
    ['issuer', escaped(p.issuer)],
    ['subject', escaped(p.subject)],
    ['client', p.clientId === undefined ? '-' : escaped(p.clientId)],
    ['scopes', p.scopes.length ? p.scopes.map(escaped).join(' ') : '-'],
    ['expires', p.expiresAt === undefined ? '-' : new Date(p.expiresAt * 1000).toISOString()],
    ['claims', escaped(p.claims)],
  ];
  out(`${profile ? `profile ${escaped(profile)} of ` : ''}${endpoint.origin} sees the token as:`);
  for (const [k, v] of rows) out(`  ${k.padEnd(8)}  ${v}`);
}

/** JSON, with every control character (C0, DEL, C1) and line separator written as an escape. */
function escaped(v: unknown): string {
  return JSON.stringify(v).replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it escapes
    /[\x7f-\x9f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
