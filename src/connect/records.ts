// What mcpx remembers of each client it connected, in the state directory (owner-only: the backup and the
// imported entries may hold the client's secrets): <state>/connect/<client>.json — the file, the bytes
// it last wrote (by digest), mcpx's entry, the profile, what --import took — and <state>/connect/
// <client>.backup, the file as it was before mcpx first changed it (none when mcpx created it).
import { createHash } from 'node:crypto';
import { copyFileSync, chmodSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { privateDir, writePrivate } from '../config/secret';
import type { Json } from './client';

export interface ImportedRecord {
  /** Its name in the client's file, and in mcpx's config. */
  readonly name: string;
  readonly as: string;
  /** The client's entry as it was, to put back. */
  readonly raw: unknown;
  /** The definition as mcpx's config got it, to take out again while it is unchanged. */
  readonly def: Json;
}

export interface ConnectRecord {
  readonly file: string;
  /** The backup's path; null: the file did not exist. */
  readonly backup: string | null;
  /** sha256 of the bytes mcpx last wrote. */
  readonly written: string;
  readonly entry: Json;
  readonly profile?: string;
  readonly imported: readonly ImportedRecord[];
}

export const digest = (bytes: string | Buffer): string => createHash('sha256').update(bytes).digest('hex');

export class Records {
  readonly dir: string;
  constructor(stateDir: string) {
    this.dir = join(stateDir, 'connect');
  }

  private path = (id: string) => join(this.dir, `${id}.json`);
  backupPath = (id: string): string => join(this.dir, `${id}.backup`);

  read(id: string): ConnectRecord | undefined {
    try {
      return JSON.parse(readFileSync(this.path(id), 'utf8')) as ConnectRecord;
    } catch {
      return undefined;
    }
  }

  write(id: string, r: ConnectRecord): void {
    privateDir(this.dir);
    writePrivate(this.path(id), `${JSON.stringify(r, null, 2)}\n`);
  }

  /** Keeps `file` as it is now (absent: null). */
  backUp(id: string, file: string, exists: boolean): string | null {
    if (!exists) return null;
    privateDir(this.dir);
    const to = this.backupPath(id);
    copyFileSync(file, to);
    chmodSync(to, 0o600);
    return to;
  }

  remove(id: string): void {
    rmSync(this.path(id), { force: true });
    rmSync(this.backupPath(id), { force: true });
  }
}
