// Where --import puts a client's servers: mcpx's config. Headless it is the config file (the daemon's;
// docs/gateway.md), edited in place like the clients' files; a server's literal environment values go to
// an owner-only env file in the state directory that its definition names (`envFile`), never into the
// config file. The editor has its own store (mcpx.servers, SecretStorage: src/vscode/connectAgents.ts).
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { privateDir, writePrivate } from '../config/secret';
import { canonicalJson } from '../kit/canonical';
import { type Imported, JSON_FILE, type Json } from './client';
import { digest } from './records';
import { writeInPlace } from './write';

export interface ServerStore {
  /** Where the servers go, for the person. */
  readonly where: string;
  names(): Promise<ReadonlySet<string>>;
  /** Adds a server; resolves with its definition as stored. */
  add(name: string, imp: Imported): Promise<Json>;
  /** Removes the server while it is as stored; false: it was changed since (it stays). */
  remove(name: string, stored: Json): Promise<boolean>;
}

export class ConfigFileStore implements ServerStore {
  constructor(
    readonly where: string,
    private readonly envDir: string,
  ) {}

  private read(): { text: string; doc: Json; key: string } {
    const text = existsSync(this.where) ? readFileSync(this.where, 'utf8') : '';
    const doc = JSON_FILE.parse(text);
    const key = 'servers' in doc || !('mcpServers' in doc) ? 'servers' : 'mcpServers';
    return { text, doc, key };
  }

  async names(): Promise<ReadonlySet<string>> {
    const { doc } = this.read();
    const of = (v: unknown) => (typeof v === 'object' && v !== null ? Object.keys(v) : []);
    return new Set([...of(doc.servers), ...of(doc.mcpServers)]);
  }

  /** The env file of a server: its name made safe for a file name, and unique by its digest. */
  private envFile(name: string): string {
    return join(this.envDir, `${name.replace(/[^A-Za-z0-9_-]/g, '_')}-${digest(name).slice(0, 8)}.env`);
  }

  async add(name: string, imp: Imported): Promise<Json> {
    const def: Json = { ...imp.def };
    if (Object.keys(imp.secrets).length) {
      privateDir(this.envDir);
      const file = this.envFile(name);
      // Quoted whole: config/envFile.ts takes off one pair of quotes, whatever the value holds.
      writePrivate(
        file,
        Object.entries(imp.secrets)
          .map(([k, v]) => `${k}="${v}"\n`)
          .join(''),
      );
      def.envFile = file;
    }
    const { text, key } = this.read();
    if (!text) mkdirSync(dirname(this.where), { recursive: true });
    writeInPlace(this.where, JSON_FILE.set(text, [key, name], def), text ? statSync(this.where).mode : 0o644);
    return def;
  }

  async remove(name: string, stored: Json): Promise<boolean> {
    const { text, doc, key } = this.read();
    const now = (doc[key] as Json | undefined)?.[name];
    if (now === undefined) return true;
    if (canonicalJson(now) !== canonicalJson(stored)) return false;
    writeInPlace(this.where, JSON_FILE.remove(text, [key, name]), statSync(this.where).mode);
    if (typeof stored.envFile === 'string') rmSync(stored.envFile, { force: true });
    return true;
  }
}
