// An authorization server built on jose, on loopback, for the tests of mcpx as a protected resource: its
// metadata (RFC 8414), its JWKS (with keys rotated in and out, or a fetch that never answers), JWT access
// tokens it signs with whatever a test asks (another key, `alg: none`, an expiry in the past), and opaque
// tokens answered by introspection (RFC 7662, client_secret_basic).
import { randomBytes } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, type JWK, SignJWT, exportJWK, generateKeyPair } from 'jose';

interface Key {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function newKey(): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = randomBytes(6).toString('hex');
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

export interface MintOptions {
  sub?: string;
  aud?: string | string[];
  scope?: string;
  /** Seconds from now (negative: already expired). Default 300. */
  expiresIn?: number;
  claims?: Record<string, unknown>;
  /** Sign with a key the JWKS does not hold. */
  foreignKey?: boolean;
  /** Another issuer in `iss`. */
  iss?: string;
}

export const INTROSPECTION_CLIENT = { id: 'mcpx-rs', secret: 'rs-secret' };

export class TestIssuer {
  url = '';
  /** How many times the JWKS was fetched. */
  jwksFetches = 0;
  /** How many introspection requests arrived. */
  introspections = 0;
  /** While set, a JWKS fetch is held open and never answered. */
  hangJwks = false;
  private keys: Key[] = [];
  private foreign?: Key;
  private readonly opaque = new Map<string, Record<string, unknown>>();
  private server?: Server;
  private readonly held = new Set<import('node:http').ServerResponse>();

  async start(): Promise<this> {
    this.keys = [await newKey()];
    this.foreign = await newKey();
    this.server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (path === '/.well-known/oauth-authorization-server')
        return json(200, {
          issuer: this.url,
          jwks_uri: `${this.url}/jwks`,
          introspection_endpoint: `${this.url}/introspect`,
          token_endpoint: `${this.url}/token`,
          authorization_endpoint: `${this.url}/authorize`,
          response_types_supported: ['code'],
          code_challenge_methods_supported: ['S256'],
        });
      if (path === '/jwks') {
        this.jwksFetches++;
        if (this.hangJwks) {
          this.held.add(res);
          res.on('close', () => this.held.delete(res));
          return;
        }
        return json(200, { keys: this.keys.map((k) => k.jwk) });
      }
      if (path === '/introspect' && req.method === 'POST') {
        this.introspections++;
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          // client_secret_basic: each part form-urlencoded, then base64 (RFC 6749 §2.3.1).
          const basic = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
          const [id, secret] = basic.split(':').map((p) => decodeURIComponent(p.replace(/\+/g, ' ')));
          if (id !== INTROSPECTION_CLIENT.id || secret !== INTROSPECTION_CLIENT.secret)
            return json(401, { error: 'invalid_client' });
          const token = new URLSearchParams(body).get('token') ?? '';
          const claims = this.opaque.get(token);
          json(200, claims ? { active: true, iss: this.url, ...claims } : { active: false });
        });
        return;
      }
      json(404, { error: 'not found' });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** A new signing key; the old one is dropped from the JWKS unless `keepOld`. */
  async rotate(keepOld = false): Promise<void> {
    const k = await newKey();
    this.keys = keepOld ? [k, ...this.keys] : [k];
  }

  /** A JWT access token signed by the current key (or a foreign one). */
  async mint(o: MintOptions = {}): Promise<string> {
    const key = o.foreignKey ? this.foreign! : this.keys[0]!;
    const now = Math.floor(Date.now() / 1000);
    const jwt = new SignJWT({ ...(o.scope !== undefined ? { scope: o.scope } : {}), client_id: 'agent', ...o.claims })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' })
      .setIssuer(o.iss ?? this.url)
      .setSubject(o.sub ?? 'alice')
      .setIssuedAt(now)
      .setExpirationTime(now + (o.expiresIn ?? 300));
    if (o.aud !== undefined) jwt.setAudience(o.aud);
    return jwt.sign(key.privateKey);
  }

  /** An unsigned token (`alg: none`) with the claims a valid one would have. */
  unsigned(o: { sub?: string; aud: string; scope?: string }): string {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    return `${b64({ alg: 'none', typ: 'at+jwt', kid: this.keys[0]!.kid })}.${b64({ iss: this.url, sub: o.sub ?? 'alice', aud: o.aud, scope: o.scope, iat: now, exp: now + 300 })}.`;
  }

  /** An opaque token whose introspection answers these claims. */
  opaqueToken(claims: Record<string, unknown>): string {
    const t = randomBytes(24).toString('base64url');
    this.opaque.set(t, { exp: Math.floor(Date.now() / 1000) + 300, ...claims });
    return t;
  }

  async close(): Promise<void> {
    for (const r of this.held) r.destroy();
    await new Promise<void>((r) => {
      this.server?.close(() => r());
      this.server?.closeAllConnections();
    });
  }
}
