// Other agents connected from the editor (docs/connect.md "In VS Code"): the same engine as `mcpx connect`
// (src/connect/), given this machine's places, the state directory the shim reads, the launcher when
// installed, and — for --import — the editor's own store: mcpx.servers in the user settings, with each
// literal environment value in SecretStorage behind a ${secret:…} reference.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultStateDir } from '../config/paths';
import type { Imported, Json } from '../connect/client';
import type { ConnectDeps } from '../connect/engine';
import { herePlaces } from '../connect/here';
import { runningShim } from '../connect/shim';
import type { ServerStore } from '../connect/store';
import { canonicalJson } from '../kit/canonical';
import type { Deps } from './commands/command';
import { launcherPath, ours } from './install';
import type { AgentsSource } from './views/agentsStatus';

/** mcpx.servers (the user settings) and SecretStorage. */
export class SettingsStore implements ServerStore {
  readonly where = 'mcpx.servers (user settings)';
  constructor(private readonly d: Pick<Deps, 'config' | 'host' | 'kit'>) {}

  private servers(): Json {
    return { ...(this.d.config.getConfiguration('mcpx').get<Json>('servers') ?? {}) };
  }

  private save(servers: Json): Promise<void> {
    return Promise.resolve(
      this.d.config.getConfiguration('mcpx').update('servers', servers, this.d.kit.ConfigurationTarget.Global),
    );
  }

  async names(): Promise<ReadonlySet<string>> {
    return new Set(Object.keys(this.servers()));
  }

  async add(name: string, imp: Imported): Promise<Json> {
    const def: Json = { ...imp.def };
    const secrets = Object.entries(imp.secrets);
    if (secrets.length) {
      const store = this.d.host.secrets;
      if (!store) throw new Error(`${name}: no SecretStorage to keep its environment values in`);
      const env = { ...(def.env as Record<string, string> | undefined) };
      for (const [k, v] of secrets) {
        const key = `${name}.${k}`.replace(/[^A-Za-z0-9_.-]/g, '_');
        await store.store(key, v);
        env[k] = `\${secret:${key}}`;
      }
      def.env = env;
    }
    await this.save({ ...this.servers(), [name]: def });
    return def;
  }

  async remove(name: string, stored: Json): Promise<boolean> {
    const servers = this.servers();
    if (servers[name] === undefined) return true;
    if (canonicalJson(servers[name]) !== canonicalJson(stored)) return false;
    delete servers[name];
    await this.save(servers);
    return true;
  }
}

function readSync(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The engine's inputs in this extension host; `d` gives --import its store. */
export function editorConnectDeps(d?: Pick<Deps, 'config' | 'host' | 'kit'>): ConnectDeps {
  const { file } = launcherPath();
  return {
    places: herePlaces(process.env),
    stateDir: defaultStateDir(process.env),
    shim: runningShim(ours(readSync(file)) ? file : undefined),
    ...(d ? { store: new SettingsStore(d) } : {}),
  };
}

/** What the agents status item reads (views/agentsStatus.ts): the engine loaded on first use. */
export function editorAgents(): AgentsSource {
  return {
    list: async () => {
      const [{ listClients }, { CLIENTS }] = await Promise.all([
        import('../connect/engine'),
        import('../connect/clients/index'),
      ]);
      return listClients(editorConnectDeps(), CLIENTS);
    },
    watched: (rows) => [...rows.map((r) => r.file), join(defaultStateDir(process.env), 'connect')],
  };
}
