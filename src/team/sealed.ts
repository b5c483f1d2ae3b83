// Secrets in a team's store, sealed (docs/team.md "Secrets"): upstream sign-ins (the SecretStore of
// src/upstream/auth/store.ts), the endpoint secret and the requestState key are written to the store only
// as AES-256-GCM ciphertext under a key derived from store.key — which every replica is given (its
// environment, a Kubernetes Secret) and the store never holds. Each value is bound to its name (the
// additional data): a sealed value copied under another name does not open.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Store } from '../store/store';
import type { SecretStore } from '../upstream/auth/store';

/** The least store.key accepted: 32 characters (a base64 of 24 random bytes, or more). */
const MIN_KEY_CHARS = 32;

export class Sealer {
  private readonly key: Buffer;

  constructor(secret: string) {
    if (secret.length < MIN_KEY_CHARS)
      throw new Error(
        `store.key must be at least ${MIN_KEY_CHARS} characters (e.g. \`openssl rand -base64 32\`), the same on every replica`,
      );
    this.key = Buffer.from(hkdfSync('sha256', secret, 'mcpx store', 'sealed values v1', 32));
  }

  seal(name: string, value: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    c.setAAD(Buffer.from(name));
    const body = Buffer.concat([c.update(value, 'utf8'), c.final()]);
    return `v1.${Buffer.concat([iv, c.getAuthTag(), body]).toString('base64url')}`;
  }

  /** The value, or undefined when it was sealed under another key or name, or is not sealed at all. */
  open(name: string, sealed: string): string | undefined {
    if (!sealed.startsWith('v1.')) return undefined;
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    if (raw.length < 28) return undefined;
    try {
      const d = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      d.setAAD(Buffer.from(name));
      d.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

/** Upstream sign-ins in the store, sealed: `secret/<key>`. */
export class SealedSecretStore implements SecretStore {
  constructor(
    private readonly store: Store,
    private readonly sealer: Sealer,
    private readonly log: (line: string) => void,
  ) {}

  async get(key: string): Promise<string | undefined> {
    const sealed = await this.store.get(`secret/${key}`);
    if (sealed === undefined) return undefined;
    const v = this.sealer.open(key, sealed);
    if (v === undefined) this.log(`team: a sign-in in the store does not open with this replica's store.key; ignored`);
    return v;
  }

  async set(key: string, value: string): Promise<void> {
    await this.store.set(`secret/${key}`, this.sealer.seal(key, value));
  }

  async delete(key: string): Promise<void> {
    await this.store.del(`secret/${key}`);
  }
}

/** A secret the replicas share, made by the first that needs it (the store keeps whichever was written
 *  first); sealed at rest. A value that does not open is a store.key that differs between replicas: an
 *  error saying so, rather than two replicas with two secrets. */
export async function sharedSecret(store: Store, sealer: Sealer, name: string, make: () => string): Promise<string> {
  const key = `key/${name}`;
  await store.set(key, sealer.seal(name, make()), { ifAbsent: true });
  const sealed = await store.get(key);
  const v = sealed === undefined ? undefined : sealer.open(name, sealed);
  if (v === undefined)
    throw new Error(
      `the store's ${name} does not open with this replica's store.key: every replica must be given the same store.key`,
    );
  return v;
}
