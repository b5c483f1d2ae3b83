// "Always allow", in the editor: kept in workspaceState (per workspace, so a tool trusted in one project
// is not trusted in all of them), listed and revoked by mcpx: Manage Permissions. The palette's old
// "Always allow this tool" list (`mcpx.toolTrust.allowed`, server/tool pairs) is moved here once, as
// grants for the editor's own identity: the tools the person trusted from the palette stay trusted there.
import { randomUUID } from 'node:crypto';
import type { Grant, GrantStore } from '../../gateway/permissions/approval';
import { isGrant } from '../../gateway/permissions/grants';
import { EDITOR_IDENTITY } from '../editorCall';
import type { Memento } from '../ports';

const KEY = 'mcpx.permissions.grants';
const OLD_KEY = 'mcpx.toolTrust.allowed';

export class WorkspaceGrants implements GrantStore {
  /** workspaceState */
  constructor(private readonly state: Memento) {}

  list(): readonly Grant[] {
    const v = this.state.get<unknown>(KEY, []);
    return Array.isArray(v) ? v.filter(isGrant) : [];
  }
  async add(grant: Grant): Promise<void> {
    await this.state.update(KEY, [...this.list().filter((g) => g.id !== grant.id), grant]);
  }
  async remove(id: string): Promise<boolean> {
    const all = this.list();
    const kept = all.filter((g) => g.id !== id);
    if (kept.length === all.length) return false;
    await this.state.update(KEY, kept);
    return true;
  }

  /** The palette's old list, moved here and removed; resolves with how many entries it had. */
  async migrate(now = Date.now()): Promise<number> {
    const old = this.state.get<unknown>(OLD_KEY);
    if (!Array.isArray(old)) return 0;
    const pairs = old.filter((x): x is string => typeof x === 'string' && x.includes('/'));
    const have = this.list();
    const added = pairs
      .map((p) => ({ server: p.slice(0, p.indexOf('/')), tool: p.slice(p.indexOf('/') + 1) }))
      .filter(
        (p) =>
          !have.some(
            (g) => g.kind === 'tool' && g.server === p.server && g.tool === p.tool && g.client === EDITOR_IDENTITY,
          ),
      )
      .map((p) => ({ id: randomUUID(), kind: 'tool' as const, ...p, client: EDITOR_IDENTITY, createdAt: now }));
    await this.state.update(KEY, [...have, ...added]);
    await this.state.update(OLD_KEY, undefined);
    return pairs.length;
  }
}
