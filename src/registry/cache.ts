// What the registry answered, kept owner-only in the state directory (`<state>/registry-cache/`, 0700,
// each answer a 0600 file named by the sha256 of its URL): the registry promises no uptime, so when it
// cannot be reached the last answer is served, said to be stale (docs/registry.md "When the registry is
// down"). Bounded: past MAX_ENTRIES the oldest answers are removed.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { privateDir, writePrivate } from '../config/secret';

const MAX_ENTRIES = 512;

export interface Cached {
  /** When it was fetched (epoch ms). */
  at: number;
  body: unknown;
}

export class RegistryCache {
  constructor(readonly dir: string) {}

  static inState(stateDir: string): RegistryCache {
    return new RegistryCache(join(stateDir, 'registry-cache'));
  }

  private file(url: string): string {
    return join(this.dir, `${createHash('sha256').update(url).digest('hex')}.json`);
  }

  get(url: string): Cached | undefined {
    try {
      const v = JSON.parse(readFileSync(this.file(url), 'utf8')) as { url?: unknown; at?: unknown; body?: unknown };
      // The URL is kept beside the answer: a file is only ever the answer to its own URL.
      return v.url === url && typeof v.at === 'number' ? { at: v.at, body: v.body } : undefined;
    } catch {
      return undefined;
    }
  }

  put(url: string, body: unknown, at = Date.now()): void {
    try {
      privateDir(this.dir);
      writePrivate(this.file(url), JSON.stringify({ url, at, body }));
      this.prune();
    } catch {
      // A cache that cannot be written serves nothing later; the answer itself is still good.
    }
  }

  private prune(): void {
    const files = readdirSync(this.dir).filter((f) => f.endsWith('.json'));
    if (files.length <= MAX_ENTRIES) return;
    const aged = files
      .map((f) => ({ f, t: statSync(join(this.dir, f)).mtimeMs }))
      .sort((a, b) => a.t - b.t)
      .slice(0, files.length - MAX_ENTRIES);
    for (const { f } of aged) rmSync(join(this.dir, f), { force: true });
  }
}
