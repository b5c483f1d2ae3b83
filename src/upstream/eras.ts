// The era of each upstream configuration, remembered in memory and in <state>/upstream-eras.json, so a
// restart costs no probe (2026-07-28 versioning: era is "a property of the server"; clients MAY persist
// it across restarts of the same configuration, re-probing if it later fails).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ServerDef } from '../config/servers';
import { isEra } from '../protocol/eras';
import type { Era } from '../protocol/revisions';

export interface EraRecord {
  era: Era;
  /** How an http server was reached: Streamable HTTP, or the 2024-11-05 HTTP+SSE fallback. */
  transport: 'stdio' | 'http' | 'sse';
  revision: string;
}

/** What identifies a configuration: how it is reached, never its secrets (env, headers, auth). */
function eraKey(def: ServerDef): string {
  const what =
    def.type === 'stdio'
      ? { type: 'stdio', command: def.command, args: def.args, cwd: def.cwd ?? '' }
      : { type: def.type, url: def.url };
  return createHash('sha256').update(JSON.stringify(what)).digest('hex').slice(0, 32);
}

export class EraCache {
  private readonly map = new Map<string, EraRecord>();

  constructor(private readonly file?: string) {
    if (!file) return;
    try {
      const v = JSON.parse(readFileSync(file, 'utf8')) as Record<string, EraRecord>;
      for (const [k, r] of Object.entries(v)) if (r && isEra(r.era)) this.map.set(k, r);
    } catch {
      // no cache yet, or an unreadable one: probe afresh
    }
  }

  get(def: ServerDef): EraRecord | undefined {
    return this.map.get(eraKey(def));
  }

  set(def: ServerDef, r: EraRecord): void {
    const k = eraKey(def);
    const old = this.map.get(k);
    if (old && old.era === r.era && old.transport === r.transport && old.revision === r.revision) return;
    this.map.set(k, r);
    this.save();
  }

  forget(def: ServerDef): void {
    if (this.map.delete(eraKey(def))) this.save();
  }

  private save(): void {
    if (!this.file) return;
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(Object.fromEntries(this.map), null, 2), { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}
