// Where "always allow" is kept headless: `<state>/permission-grants.json`, owner-only (0600), read on each
// decision so a grant revoked by `mcpx permissions revoke` or another gateway of the same state directory
// is gone at once. Without a state directory (tests, the conformance client): memory only. The editor
// sets its own store (workspaceState) through GatewayOptions.permissions.grants.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { privateDir, writePrivate } from '../../config/secret';
import { CALL_KINDS } from '../../config/permissions';
import type { Grant, GrantStore } from './approval';

/** A stored grant as it must be (a hand-edited or older store may hold anything); the editor's store too.
 *  One without its kind (written before grants recorded it) is not read: it may have been given for a
 *  prompt, and would let a tool of the same name through, so its call asks again. */
export const isGrant = (g: unknown): g is Grant => {
  const x = g as Partial<Grant> | null;
  return (
    typeof x === 'object' &&
    x !== null &&
    [x.id, x.server, x.tool, x.client].every((v) => typeof v === 'string') &&
    typeof x.createdAt === 'number' &&
    (CALL_KINDS as readonly unknown[]).includes(x.kind)
  );
};

export class FileGrantStore implements GrantStore {
  constructor(readonly file: string) {}
  static inState(stateDir: string): FileGrantStore {
    return new FileGrantStore(join(stateDir, 'permission-grants.json'));
  }
  list(): readonly Grant[] {
    try {
      const v = JSON.parse(readFileSync(this.file, 'utf8')) as { grants?: unknown };
      return Array.isArray(v.grants) ? v.grants.filter(isGrant) : [];
    } catch {
      return [];
    }
  }
  private write(grants: readonly Grant[]): void {
    privateDir(dirname(this.file));
    writePrivate(this.file, JSON.stringify({ grants }, null, 2));
  }
  async add(grant: Grant): Promise<void> {
    this.write([...this.list().filter((g) => g.id !== grant.id), grant]);
  }
  async remove(id: string): Promise<boolean> {
    const all = this.list();
    const kept = all.filter((g) => g.id !== id);
    if (kept.length === all.length) return false;
    this.write(kept);
    return true;
  }
}

export class MemoryGrantStore implements GrantStore {
  private grants: Grant[] = [];
  list(): readonly Grant[] {
    return this.grants;
  }
  async add(grant: Grant): Promise<void> {
    this.grants = [...this.grants.filter((g) => g.id !== grant.id), grant];
  }
  async remove(id: string): Promise<boolean> {
    const n = this.grants.length;
    this.grants = this.grants.filter((g) => g.id !== id);
    return this.grants.length < n;
  }
}
