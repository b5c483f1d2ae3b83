// Secrets of a server definition kept out of everything a client or a log can see: tool output, error
// messages, log lines (docs/security.md "Secrets in output and logs"). One place decides what is secret.
import { readEnvFile } from './envFile';
import type { ServerDef } from './servers';

const MASK = '***';

/** A query parameter or header whose name looks secret: token, key, secret, password, auth, signature,
 *  credential anywhere in it (x-api-key, access_token, apikey, Authorization), sig as a word. */
const SECRET_NAME = /token|key|secret|passw|auth|signature|credential|(?:^|[-_.])sig(?:$|[-_.])/i;

/** The URL without userinfo, and with the value of the auth query parameter and of any parameter whose
 *  name looks secret replaced by ***. Text that is not a URL has userinfo-like parts removed. */
export function redactUrl(url: string, def?: ServerDef): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url.replace(/\/\/[^/@\s]*@/, '//');
  }
  u.username = '';
  u.password = '';
  const authName = def?.auth?.type === 'query' ? def.auth.name : undefined;
  const names = [...new Set(u.searchParams.keys())];
  for (const name of names) if (name === authName || SECRET_NAME.test(name)) u.searchParams.set(name, MASK);
  return u.toString();
}

/** Each definition's secrets, worked out once (a log line is redacted per line). */
const known = new WeakMap<ServerDef, string[]>();

/** The secret strings of a definition: its auth, header, env and envFile values, userinfo, secret query
 *  values. */
function secretsOf(def: ServerDef): string[] {
  const cached = known.get(def);
  if (cached) return cached;
  const out: string[] = [];
  const a = def.auth as Record<string, unknown> | undefined;
  if (a)
    for (const k of ['token', 'password', 'value', 'clientSecret', 'privateKeyPem'])
      if (typeof a[k] === 'string') out.push(a[k]);
  // The enterprise identity provider's client secret (auth.enterprise.clientSecret).
  const idp = a?.enterprise as Record<string, unknown> | undefined;
  if (typeof idp?.clientSecret === 'string') out.push(idp.clientSecret);
  // A header's whole value, and its credential alone (`Bearer <token>`): an agent may quote either.
  if ('headers' in def)
    for (const v of Object.values(def.headers)) out.push(v, ...(/^\S+ (\S+)$/.exec(v)?.slice(1) ?? []));
  if ('env' in def) for (const v of Object.values(def.env)) if (v !== null) out.push(String(v));
  if ('envFile' in def && def.envFile) {
    try {
      out.push(...Object.values(readEnvFile(def.envFile)));
    } catch {
      // unreadable: the upstream cannot start with it either
    }
  }
  if ('url' in def) {
    try {
      const u = new URL(def.url);
      for (const s of [u.username, u.password]) if (s) out.push(s, decodeURIComponent(s));
      for (const [k, v] of u.searchParams) if (SECRET_NAME.test(k)) out.push(v, encodeURIComponent(v));
    } catch {
      // not a URL: nothing more to find
    }
  }
  if (a?.type === 'basic' && typeof a.username === 'string' && typeof a.password === 'string')
    out.push(Buffer.from(`${a.username}:${a.password}`).toString('base64'));
  // Short values (a flag such as DEBUG=1) would mask ordinary text and protect nothing.
  const secrets = [...new Set(out)].filter((s) => s.length >= 4).sort((x, y) => y.length - x.length);
  known.set(def, secrets);
  return secrets;
}

/** A message about a server with its URL redacted and every secret value of its definition masked. */
export function redactText(text: string, def: ServerDef): string {
  let out = text;
  if ('url' in def) out = out.split(def.url).join(redactUrl(def.url, def));
  for (const s of secretsOf(def)) if (out.includes(s)) out = out.split(s).join(MASK);
  return withoutUserinfo(out);
}

const WORD = /\w/;
const USERINFO_END = /[/@\s]/;

/** `text` with the userinfo of every `scheme://user:pass@` in it removed. A scan from each "://" up to the
 *  next "/", "@" or space, so linear in the text: the regular expression it replaces
 *  (/(\w+:\/\/)[^/@\s]*@/g) backtracked quadratically, and an upstream's 1 MB log message of word
 *  characters held the event loop for an hour (docs/security.md "Hostile shapes"). */
function withoutUserinfo(text: string): string {
  let out = '';
  let from = 0;
  for (let i = text.indexOf('://'); i !== -1; i = text.indexOf('://', i + 3)) {
    if (i === 0 || !WORD.test(text[i - 1]!)) continue;
    let j = i + 3;
    while (j < text.length && !USERINFO_END.test(text[j]!)) j++;
    if (text[j] !== '@') continue;
    out += text.slice(from, i + 3);
    from = j + 1;
    i = j - 2; // the next "://" is searched for after the "@"
  }
  return from === 0 ? text : out + text.slice(from);
}

/** A JSON value with redactText applied to every string in it (a copy; at most `depth` levels, deeper
 *  parts dropped): what an upstream logs may quote its own credentials (docs/security.md "Secrets in output and logs"). */
export function redactValue(value: unknown, def: ServerDef, depth = 32): unknown {
  return mapStrings(value, (s) => redactText(s, def), depth);
}

/** redactText for the secrets of every definition at once: an agent's arguments may quote any server's
 *  credentials (docs/gateway.md "Activity"), and `more` — the gateway's own, its endpoint secret (in a URL
 *  of the gateway an agent passes on, or an `Authorization: Bearer` value). */
export function redactorOf(defs: Iterable<ServerDef>, more: Iterable<string> = []): (text: string) => string {
  const all = [...defs];
  const own = [...more].filter((s) => s.length >= 4);
  return (text) => {
    let out = text;
    for (const d of all) out = redactText(out, d);
    for (const s of own) if (out.includes(s)) out = out.split(s).join(MASK);
    return out;
  };
}

/** A copy of a JSON value with `f` applied to every string in it, values and keys (at most `depth`
 *  levels, deeper parts dropped). */
export function mapStrings(value: unknown, f: (s: string) => string, depth = 32): unknown {
  if (typeof value === 'string') return f(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth <= 0) return '[…]';
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f, depth - 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[f(k)] = mapStrings(v, f, depth - 1);
  return out;
}
