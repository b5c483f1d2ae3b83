// The store a URL names (store.url; docs/team.md "The store"): `redis://` or `rediss://` (a Redis or
// Valkey server), `redis+cluster://` or `rediss+cluster://` (one node of a Redis Cluster), or
// `file:///dir` (files on this machine). The Redis client is its own bundle, loaded only here.
import { fileURLToPath } from 'node:url';
import { bundleNear } from '../kit/bundles';
import { FileStore } from './files';
import { type Store, StoreError } from './store';

const BUNDLE = 'store-redis.js';

export interface OpenOptions {
  url: string;
  /** store.prefix: every key and channel starts with it (Redis). */
  prefix: string;
  log(line: string): void;
  connectTimeoutMs?: number;
}

/** Why `url` names no store mcpx can open, or undefined when it does. */
export function storeUrlProblem(url: string): string | undefined {
  if (!URL.canParse(url)) return `store.url ${JSON.stringify(redacted(url))} is not a URL`;
  const scheme = new URL(url).protocol;
  if (['redis:', 'rediss:', 'redis+cluster:', 'rediss+cluster:', 'file:'].includes(scheme)) return undefined;
  return `store.url must be redis://, rediss://, redis+cluster://, rediss+cluster:// or file:// (got ${scheme})`;
}

/** A URL as an error may quote it: its password never. */
function redacted(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

export async function openStore(o: OpenOptions): Promise<Store> {
  const bad = storeUrlProblem(o.url);
  if (bad) throw new StoreError(bad);
  const u = new URL(o.url);
  if (u.protocol === 'file:') return new FileStore(fileURLToPath(u));
  const cluster = u.protocol.endsWith('+cluster:');
  const url = cluster ? o.url.replace(/^(rediss?)\+cluster:/, '$1:') : o.url;
  // A runtime require of mcpx's own bundle (never bundled into the caller: its path is a value).
  const mod = require(bundleNear(BUNDLE)) as {
    openRedisStore(x: OpenOptions & { cluster: boolean }): Promise<Store>;
  };
  return mod.openRedisStore({ ...o, url, cluster });
}
