// Where sign-ins are kept (docs/security.md "Upstream sign-in tokens"): the editor's SecretStorage, or
// headless a file readable by its owner only in the state directory. Never a setting, the era cache, a
// log line or an error message.
import type { webcrypto } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { privateDir, writePrivate } from '../../config/secret';

export interface SecretStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

/** What one sign-in holds, per server: the authorization server it is bound to, the client registered
 *  there (credentials are bound to the issuer that issued them: 2026-07-28 basic/authorization/
 *  client-registration "Authorization Server Binding"), and the tokens. */
export interface Grant {
  issuer: string;
  resource?: string;
  client?: { client_id: string; client_secret?: string; auth_method: string; redirect_uri?: string };
  access_token?: string;
  /** How the access token is presented: `DPoP` with a proof per request (RFC 9449 §7.1), else `Bearer`. */
  token_type?: 'bearer' | 'dpop';
  /** The DPoP key pair (a private JWK) the tokens are bound to: the server's, kept with its sign-in. */
  dpop_key?: webcrypto.JsonWebKey;
  refresh_token?: string;
  /** An OpenID Connect sign-in's ID token (the enterprise IdP's: idp.ts keeps it apart). */
  id_token?: string;
  /** Epoch ms. */
  expires_at?: number;
  /** The scopes asked for so far (accumulated on step-up: docs/protocol.md "Authorization to upstreams"). */
  scope?: string;
}

/** A JSON map in one file, mode 0600 in a 0700 directory, written whole through a temporary file
 *  (config/secret.ts writePrivate, as the state directory's other secrets are). */
export class FileSecretStore implements SecretStore {
  constructor(readonly file: string) {}
  static inState(stateDir: string): FileSecretStore {
    return new FileSecretStore(join(stateDir, 'oauth-tokens.json'));
  }
  /** The values servers' definitions refer to as ${secret:NAME} headless (docs/registry.md "Secrets"):
   *  `mcpx install` writes them, the config file's loader reads them. */
  static serverSecrets(stateDir: string): FileSecretStore {
    return new FileSecretStore(join(stateDir, 'secrets.json'));
  }
  /** Every value, read now (the config file's loader is synchronous). */
  read(): Record<string, string> {
    try {
      const v = JSON.parse(readFileSync(this.file, 'utf8')) as unknown;
      return typeof v === 'object' && v !== null ? (v as Record<string, string>) : {};
    } catch {
      return {};
    }
  }
  private write(all: Record<string, string>): void {
    privateDir(dirname(this.file));
    writePrivate(this.file, JSON.stringify(all));
  }
  async get(key: string): Promise<string | undefined> {
    return this.read()[key];
  }
  async set(key: string, value: string): Promise<void> {
    this.write({ ...this.read(), [key]: value });
  }
  async delete(key: string): Promise<void> {
    const all = this.read();
    if (!(key in all)) return;
    delete all[key];
    this.write(all);
  }
}

/** For one process only (the conformance client, tests). */
export class MemorySecretStore implements SecretStore {
  private readonly map = new Map<string, string>();
  async get(key: string): Promise<string | undefined> {
    return this.map.get(key);
  }
  async set(key: string, value: string): Promise<void> {
    this.map.set(key, value);
  }
  async delete(key: string): Promise<void> {
    this.map.delete(key);
  }
}

const PREFIX = 'mcpx.oauth/';
export const grantKey = (server: string): string => `${PREFIX}${server}`;

export async function loadGrant(store: SecretStore, server: string): Promise<Grant | undefined> {
  const raw = await store.get(grantKey(server));
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as Grant;
  } catch {
    return undefined;
  }
}
