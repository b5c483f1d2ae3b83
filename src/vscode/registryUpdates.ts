// Which registry-installed servers have a newer version (docs/registry.md "In the editor"): asked of the
// registry each entry names, at most once every CHECK_MS per gateway run and only while the Upstreams view
// lists servers; the view marks the server with the newer version and offers Update.
import type { GatewayFacade } from '../gateway/editorPort';
import { RegistryCache } from '../registry/cache';
import { RegistryClient } from '../registry/client';
import { provenanceOf } from '../registry/update';
import { type Disposable, Emitter } from './lifetimes';

const CHECK_MS = 30 * 60_000;

export class RegistryUpdates implements Disposable {
  private readonly newerBy = new Map<string, string>();
  private readonly changed = new Emitter();
  readonly onDidChange = this.changed.event;
  private checked?: { gateway: GatewayFacade; at: number };

  constructor(private readonly stateDir: string) {}

  dispose(): void {
    this.changed.dispose();
  }

  /** The newer version of a server, when the last check found one. */
  newer(server: string): string | undefined {
    return this.newerBy.get(server);
  }

  /** Asks the registries again, unless this gateway was asked within CHECK_MS (or is being asked). */
  refresh(g: GatewayFacade): void {
    if (this.checked?.gateway === g && Date.now() - this.checked.at < CHECK_MS) return;
    this.checked = { gateway: g, at: Date.now() };
    void this.check(g);
  }

  private async check(g: GatewayFacade): Promise<void> {
    const found = new Map<string, string>();
    for (const def of g.config.servers) {
      const p = provenanceOf(def as unknown as Record<string, unknown>);
      if (!p) continue;
      try {
        const client = new RegistryClient({
          url: p.url ?? g.settings.get<string>('registry.url'),
          timeoutMs: g.settings.duration('registry.timeout'),
          cache: RegistryCache.inState(this.stateDir),
        });
        const latest = await client.version(p.name);
        if (latest.value.server.version !== p.version) found.set(def.name, latest.value.server.version);
      } catch {
        // A registry that cannot say: no Update offered (the view shows the installed version all the same).
      }
    }
    this.newerBy.clear();
    for (const [k, v] of found) this.newerBy.set(k, v);
    this.changed.fire();
  }
}
