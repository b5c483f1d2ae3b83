// A client of the MCP Registry API v0.1 (docs/registry.md): the list with its search and pages, a server's
// versions, one version (or `latest`). Every lookup asks with include_deleted=true, so a deleted server is
// named as deleted rather than "not found" (the official registry's docs/reference/api/
// official-registry-api.md). Each answer is cached (cache.ts); when the registry cannot be reached — no
// connection, no answer within the timeout, a 5xx — the cached answer is served and marked stale, and
// without one the error names the registry. A 404 or another 4xx is an answer, never replaced by the cache.
import type { RegistryCache } from './cache';
import { type RegistryEntry, parseEntry, parseList } from './types';
import { readBounded } from '../kit/bounded';

/** The largest answer read from a registry. */
const MAX_BYTES = 16 * 1024 * 1024;
/** The official registry's largest page. */
const MAX_LIMIT = 100;

export type RegistryErrorKind = 'unreachable' | 'not-found' | 'refused' | 'invalid';

export class RegistryError extends Error {
  override name = 'RegistryError';
  constructor(
    readonly kind: RegistryErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** An answer, and when it is the cached one (the registry could not be reached): when it was fetched and why. */
export interface Fetched<T> {
  value: T;
  stale?: { at: number; why: string };
}

export interface RegistryClientOptions {
  /** The registry's base URL (registry.url). */
  url: string;
  timeoutMs: number;
  cache?: RegistryCache;
}

export class RegistryClient {
  readonly base: string;
  constructor(private readonly o: RegistryClientOptions) {
    let u: URL;
    try {
      u = new URL(o.url);
    } catch {
      throw new RegistryError('invalid', `registry.url: not a URL: ${JSON.stringify(o.url)}`);
    }
    if (u.protocol !== 'https:' && u.protocol !== 'http:')
      throw new RegistryError('invalid', `registry.url: expected an http or https URL, got ${JSON.stringify(o.url)}`);
    this.base = u.href.replace(/\/+$/, '');
  }

  /** One page of the servers whose name or description holds `query` (each at its latest version). */
  async search(
    query: string,
    page: { cursor?: string; limit?: number } = {},
  ): Promise<Fetched<{ entries: RegistryEntry[]; skipped: string[]; nextCursor?: string }>> {
    const q = new URLSearchParams({ version: 'latest', limit: String(Math.min(page.limit ?? 30, MAX_LIMIT)) });
    if (query) q.set('search', query);
    if (page.cursor) q.set('cursor', page.cursor);
    const got = await this.get(`/v0.1/servers?${q}`, 'the server list');
    return { ...got, value: parseList(got.value, `${this.base}: the server list`) };
  }

  /** Every version of a server, newest first as the registry lists them. */
  async versions(name: string): Promise<Fetched<RegistryEntry[]>> {
    const got = await this.get(`/v0.1/servers/${encodeURIComponent(name)}/versions?include_deleted=true`, name);
    const l = parseList(got.value, `${this.base}: the versions of ${name}`);
    return { ...got, value: l.entries };
  }

  /** One version of a server (`latest`: the registry's latest). */
  async version(name: string, version = 'latest'): Promise<Fetched<RegistryEntry>> {
    const path = `/v0.1/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}?include_deleted=true`;
    const got = await this.get(path, version === 'latest' ? name : `${name}@${version}`);
    const entry = parseEntry(got.value, `${this.base}: ${name}@${version}`);
    if (entry.server.name !== name)
      throw new RegistryError('invalid', `${this.base} answered for ${name} with ${JSON.stringify(entry.server.name)}`);
    return { ...got, value: entry };
  }

  private async get(path: string, what: string): Promise<Fetched<unknown>> {
    const url = `${this.base}${path}`;
    try {
      const value = await this.fetchJson(url, what);
      this.o.cache?.put(url, value);
      return { value };
    } catch (e) {
      if (!(e instanceof RegistryError) || e.kind !== 'unreachable') throw e;
      const cached = this.o.cache?.get(url);
      if (!cached) throw e;
      return { value: cached.body, stale: { at: cached.at, why: e.message } };
    }
  }

  private async fetchJson(url: string, what: string): Promise<unknown> {
    const unreachable = (why: string) =>
      new RegistryError('unreachable', `the MCP Registry at ${this.base} could not be reached: ${why}`);
    let res: Response;
    try {
      res = await fetch(url, {
        headers: { accept: 'application/json' },
        redirect: 'follow',
        signal: AbortSignal.timeout(this.o.timeoutMs),
      });
    } catch (e) {
      const err = e as Error & { cause?: { code?: string; message?: string } };
      if (err.name === 'TimeoutError') throw unreachable(`no answer within ${this.o.timeoutMs} ms (registry.timeout)`);
      throw unreachable(err.cause?.code ?? err.cause?.message ?? err.message);
    }
    if (res.status === 404) {
      await res.body?.cancel();
      throw new RegistryError('not-found', `${what} is not in the MCP Registry at ${this.base}`);
    }
    if (res.status >= 500) {
      await res.body?.cancel();
      throw unreachable(`it answered ${res.status}`);
    }
    if (res.status !== 200) {
      const text = await readBounded(res, 2048, () => new Error('the answer is larger than 2048 bytes')).catch(
        () => '',
      );
      throw new RegistryError(
        'refused',
        `the MCP Registry at ${this.base} refused ${what}: ${res.status} ${text.slice(0, 200)}`,
      );
    }
    let text: string;
    try {
      text = await readBounded(res, MAX_BYTES, () => new Error(`the answer is larger than ${MAX_BYTES} bytes`));
    } catch (e) {
      if ((e as Error).name === 'TimeoutError')
        throw unreachable(`no answer within ${this.o.timeoutMs} ms (registry.timeout)`);
      throw new RegistryError('invalid', `the MCP Registry at ${this.base}: ${what}: ${(e as Error).message}`);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new RegistryError('invalid', `the MCP Registry at ${this.base} answered ${what} with something not JSON`);
    }
  }
}
