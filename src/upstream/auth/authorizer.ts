// One upstream's sign-in: the headers of its requests (Authorization, a DPoP proof), what a refused
// request asks of the client, and the person's part through a SignInPort. One per server for the whole
// gateway, so one sign-in serves every client and every connection (docs/gateway.md "Signing in to
// upstreams").
import { signInInBrowser } from './browser';
import { type Challenge, authChallenge } from './challenge';
import { type Discovered, discover } from './discovery';
import { DpopKey, wantsDpop } from './dpop';
import { AuthError, SignInRequired } from './errors';
import { type OAuthConfig, describe, refresh, revoke, unattended } from './grants';
import { idpIdToken } from './idp';
import type { SignInPort } from './person';
import { type RetryOptions, type Retries, retryAfter } from './refusal';
import { type Grant, type SecretStore, grantKey, loadGrant } from './store';
import { unattendedGrant } from './unattended';

export type { SignInPort, SignInRequest } from './person';

export type SignInState = 'signed-in' | 'needs-sign-in' | 'signing-in' | 'not-needed';

export interface AuthorizerOptions {
  server: string;
  url: string;
  config?: OAuthConfig;
  store: SecretStore;
  person?: SignInPort;
  log: (line: string) => void;
  /** How long the person has to finish a sign-in (auth.signInTimeout). */
  signInTimeoutMs: number;
  /** How many step-ups one request may make before it fails (auth.stepUpRetries). */
  stepUpRetries: number;
  /** The command or button that fixes a missing sign-in, named in the error; `{server}` is replaced by
   *  the server's name. */
  fixHint: string;
  onChange?: (server: string, state: SignInState) => void;
}

const RENEW_FAILED = 'its sign-in expired and could not be renewed, so sign in again';

/** Refresh this long before the access token expires. */
const EARLY_MS = 60_000;

const union = (...lists: Array<string | undefined>): string | undefined => {
  const all = new Set(lists.flatMap((l) => (l ? l.split(/\s+/).filter(Boolean) : [])));
  return all.size ? [...all].join(' ') : undefined;
};

export class Authorizer {
  private grant?: Grant;
  private discovered?: Discovered;
  private loaded = false;
  private pending?: Promise<void>;
  private state: SignInState = 'not-needed';
  private lastChallenge?: Challenge;
  private dpop?: DpopKey;

  constructor(readonly o: AuthorizerOptions) {}

  /** Whether the definition says `auth: {type: "oauth"}` (else OAuth starts only on a challenge). */
  get configured(): boolean {
    return this.o.config !== undefined;
  }

  status(): SignInState {
    return this.state;
  }

  private setState(s: SignInState): void {
    if (s === this.state) return;
    this.state = s;
    this.o.onChange?.(this.o.server, s);
  }

  /** A workload's tokens are kept in memory only: its JWT gets a new one at any time, and SEP-1933
   *  ("Security Implications") asks that exchanged tokens not be stored. */
  private get persisted(): boolean {
    return this.o.config?.grant !== 'jwt_bearer';
  }

  private async load(): Promise<void> {
    if (this.loaded) return;
    this.loaded = true;
    if (this.persisted) await this.adopt(await loadGrant(this.o.store, this.o.server));
    if (this.grant?.access_token) this.setState('signed-in');
  }

  /** Takes a grant as the current one, with the DPoP key its tokens are bound to. */
  private async adopt(g: Grant | undefined): Promise<void> {
    this.grant = g;
    if (g?.dpop_key && g.dpop_key.d !== this.dpop?.jwk.d) this.dpop = await DpopKey.fromJwk(g.dpop_key);
  }

  /** Whether the stored grant changed under us (another process signed in: `mcpx auth login`). */
  private async reload(): Promise<boolean> {
    if (!this.persisted) return false;
    const g = await loadGrant(this.o.store, this.o.server);
    const changed = g?.access_token !== this.grant?.access_token;
    await this.adopt(g);
    return changed && !!g?.access_token;
  }

  private async save(g: Grant): Promise<void> {
    this.grant = g;
    if (this.persisted) await this.o.store.set(grantKey(this.o.server), JSON.stringify(g));
  }

  /** The headers that authorize the next request to the MCP server — `Authorization`, and with a
   *  DPoP-bound token a fresh `DPoP` proof for `method` and `url` (RFC 9449 §7) — renewed first when
   *  the token is about to expire. None while not signed in. */
  async headers(method: string, url: string): Promise<Record<string, string>> {
    await this.load();
    // A sign-in or refresh under way: this request waits for it; its failure is that request's to report.
    await this.pending?.catch(() => undefined);
    const g = this.grant;
    if (!g?.access_token) return {};
    if (g.expires_at !== undefined && g.expires_at - EARLY_MS < Date.now()) {
      if (g.refresh_token) await this.once(() => this.refreshOrFail());
      else if (unattended(this.o.config)) await this.once(() => this.signInNow(this.lastChallenge));
    }
    const token = this.grant?.access_token;
    if (!token) return {};
    if (this.grant?.token_type !== 'dpop' || !this.dpop) return { Authorization: `Bearer ${token}` };
    return { Authorization: `DPoP ${token}`, DPoP: await this.dpop.proof(method, url, token) };
  }

  /** Whether a request answered `res` should be sent again (refusal.ts); any answer's DPoP-Nonce kept. */
  retry(res: Response, sent: Record<string, string>, tries: Retries, o: RetryOptions): Promise<boolean> {
    this.dpop?.remember(res, this.o.url);
    return retryAfter(this, { res, sent, tries, ...o });
  }

  /** One protocol operation at a time: concurrent requests wait for the same refresh or sign-in. */
  private once(f: () => Promise<void>): Promise<void> {
    if (!this.pending) {
      this.pending = f().finally(() => {
        this.pending = undefined;
      });
    }
    return this.pending;
  }

  private async discover(challenge?: Challenge): Promise<Discovered> {
    const d = await discover(new URL(this.o.url), challenge ?? this.lastChallenge);
    // A new authorization server: nothing registered at the old one is used (2026-07-28
    // basic/authorization/client-registration "Authorization Server Binding").
    if (this.grant && this.grant.issuer !== d.as.issuer) {
      this.o.log(
        `[${this.o.server}] the authorization server is now ${new URL(d.as.issuer).host}: signing in there afresh`,
      );
      this.grant = undefined;
    }
    this.discovered = d;
    return d;
  }

  private async refreshOrFail(): Promise<void> {
    const g = this.grant;
    if (!g?.refresh_token || !g.client) throw this.needSignIn('the sign-in has expired');
    const d = this.discovered ?? (await this.discover());
    try {
      // A DPoP-bound refresh token is presented with a proof of the same key (RFC 9449 §5).
      const dpop = g.token_type === 'dpop' ? this.dpop?.handle : undefined;
      const t = await refresh({ d, client: g.client, cfg: this.o.config ?? {}, dpop }, g);
      await this.save({ ...g, ...t });
      this.setState('signed-in');
      this.o.log(`[${this.o.server}] access token refreshed`);
    } catch (e) {
      // A refresh that fails asks for sign-in again (the refresh token was revoked or expired).
      this.o.log(`[${this.o.server}] refresh failed (${describe(e)}): sign-in needed`);
      await this.save({ ...g, access_token: undefined, refresh_token: undefined, expires_at: undefined });
      throw this.needSignIn(RENEW_FAILED);
    }
  }

  private needSignIn(why: string): SignInRequired {
    this.setState('needs-sign-in');
    return new SignInRequired(
      this.o.server,
      `upstream ${this.o.server} needs a sign-in (${why}): ${this.o.fixHint.replace('{server}', this.o.server)}`,
    );
  }

  /** Whether a person can sign in now, or the grant needs nobody. */
  canSignIn(): boolean {
    return unattended(this.o.config) || (this.o.person?.available() ?? false);
  }

  /** A 401: the token is missing, expired or revoked. Reload (someone else may have signed in), refresh,
   *  or, with no person to ask, fail at once naming the fix. `sent` is the token the refused request
   *  carried. */
  async unauthorized(
    challenge: Challenge | undefined,
    sent: string | undefined,
    /** Whether the person may be asked now (after the handshake: connect() asks during it, unbounded
     *  by the handshake's timeouts). */
    interactive = false,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.load();
    if (challenge) this.lastChallenge = challenge;
    await this.once(async () => {
      if (this.grant?.access_token && this.grant.access_token !== sent) return; // renewed meanwhile
      if (await this.reload()) return;
      let why = this.grant?.access_token ? 'its sign-in has expired' : 'not signed in';
      if (this.grant?.refresh_token && this.grant.client) {
        try {
          await this.refreshOrFail();
          return;
        } catch (e) {
          why = (e as Error).message.includes('could not be renewed') ? RENEW_FAILED : why;
        }
      }
      if (unattended(this.o.config) || (interactive && this.canSignIn()))
        return this.signInNow(challenge, undefined, signal);
      throw this.needSignIn(why);
    });
  }

  /** A 403 with insufficient_scope: sign in again for the union of what was asked before and what the
   *  challenge names (2026-07-28 basic/authorization "Runtime Insufficient Scope Errors"; docs/protocol.md
   *  "Authorization to upstreams", the step-up reading), at most `stepUpRetries` times per request. */
  async insufficientScope(challenge: Challenge, attempt: number, signal?: AbortSignal): Promise<void> {
    if (attempt >= this.o.stepUpRetries)
      throw new AuthError(
        `upstream ${this.o.server} still refuses for insufficient scope after ${attempt} step-up${attempt === 1 ? '' : 's'} (asked: ${challenge.scope ?? 'no scope named'})`,
      );
    this.lastChallenge = challenge;
    if (!this.canSignIn())
      throw this.needSignIn(`it needs the scope ${challenge.scope ?? '(unnamed)'} it was not granted`);
    const scope = union(this.grant?.scope, challenge.scope);
    await this.once(() => this.signInNow(challenge, scope, signal));
  }

  /** Sign in now: discovery, registration, the person's part (or the client credentials grant), the
   *  tokens stored. Throws SignInRequired when nobody can sign in. `person` stands in for the host's
   *  (the calling client, given the URL: docs/gateway.md "Signing in through the calling client"); a
   *  sign-in already under way is joined instead, whoever its person. */
  signIn(opts: { signal?: AbortSignal; scope?: string; person?: SignInPort } = {}): Promise<void> {
    return this.once(async () => {
      this.lastChallenge ??= await this.askChallenge();
      const c = this.lastChallenge;
      // After an insufficient_scope refusal, what was granted plus what it asks for (the step-up reading).
      const scope = opts.scope ?? (c?.error === 'insufficient_scope' ? union(this.grant?.scope, c.scope) : undefined);
      await this.signInNow(c, scope, opts.signal, opts.person);
    });
  }

  /** A sign-in asked for before the server was ever contacted: one request without a token, for the
   *  challenge a server may name its resource metadata in only (RFC 9728 §5). */
  private async askChallenge(): Promise<Challenge | undefined> {
    try {
      const res = await fetch(this.o.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
        signal: AbortSignal.timeout(10_000),
      });
      await res.body?.cancel();
      return res.status === 401 ? authChallenge(res) : undefined;
    } catch {
      return undefined;
    }
  }

  private scopeFor(d: Discovered, challenge?: Challenge, wanted?: string): string | undefined {
    // 2025-11-25 basic/authorization "Scope Selection Strategy": the challenge's scope, else the
    // resource's scopes_supported, else none.
    const base = wanted ?? challenge?.scope ?? d.scopesSupported?.join(' ');
    // 2026-07-28 basic/authorization "Refresh Tokens": offline_access only where the server lists it,
    // and not for an assertion grant, which gets a new token from a new assertion.
    const assertion = this.o.config?.grant === 'jwt_bearer' || this.o.config?.grant === 'enterprise';
    const offline = d.as.scopes_supported?.includes('offline_access') && !assertion ? 'offline_access' : undefined;
    return union(base, this.o.config?.scopes?.join(' '), offline);
  }

  private async signInNow(
    challenge?: Challenge,
    wanted?: string,
    signal?: AbortSignal,
    standIn?: SignInPort,
  ): Promise<void> {
    const cfg = this.o.config ?? {};
    const d = await this.discover(challenge);
    const scope = this.scopeFor(d, challenge, wanted);
    const issuerHost = new URL(d.as.issuer).host;
    const prev = this.grant?.issuer === d.as.issuer ? this.grant : undefined;
    const base = { issuer: d.as.issuer, resource: d.resource, scope };
    const dpop = await this.dpopFor(d, challenge);
    if (unattended(cfg)) {
      const { client, tokens } = await unattendedGrant({
        d,
        cfg,
        scope,
        known: prev?.client,
        dpop: dpop?.handle,
        server: this.o.url,
        signInAtIdp: () => this.idToken(signal, standIn),
      });
      await this.saveBound({ ...base, client, ...tokens }, dpop);
      this.setState('signed-in');
      return;
    }
    const person = standIn ?? this.o.person;
    if (!person?.available()) throw this.needSignIn('not signed in');
    const existing = await person.existingSession?.(d.as.issuer, scope ? scope.split(' ') : []);
    if (existing) {
      await this.save({ ...base, access_token: existing });
      this.setState('signed-in');
      return;
    }
    this.setState('signing-in');
    try {
      const { client, tokens } = await signInInBrowser({
        server: this.o.server,
        d,
        cfg,
        scope,
        known: prev?.client,
        person,
        timeoutMs: this.o.signInTimeoutMs,
        signal,
        dpop: dpop?.handle,
        log: this.o.log,
      });
      await this.saveBound({ ...base, client, ...tokens }, dpop);
      this.setState('signed-in');
      this.o.log(`[${this.o.server}] signed in at ${issuerHost}`);
    } catch (e) {
      this.setState(this.grant?.access_token ? 'signed-in' : 'needs-sign-in');
      if (e instanceof AuthError || e instanceof SignInRequired) throw e;
      throw new AuthError(`signing in to ${this.o.server} at ${issuerHost} failed: ${describe(e)}`);
    }
  }

  /** The DPoP key when the token is to be bound (dpop.ts wantsDpop): the one kept, else a new one. */
  private async dpopFor(d: Discovered, challenge?: Challenge): Promise<DpopKey | undefined> {
    if (!wantsDpop(this.o.config?.dpop, d, challenge ?? this.lastChallenge)) return undefined;
    this.dpop ??= await DpopKey.create();
    return this.dpop;
  }

  /** Saves a new grant with the key its tokens are bound to. `auth.dpop: true` refuses a Bearer token
   *  from a server that ignored the proof: a bound token was asked for, an unbound one would be a
   *  downgrade. */
  private async saveBound(g: Grant, dpop: DpopKey | undefined): Promise<void> {
    if (dpop && g.token_type !== 'dpop' && this.o.config?.dpop === true)
      throw new AuthError(
        `the authorization server ${new URL(g.issuer).host} issued a Bearer token where a DPoP-bound one was asked for (auth.dpop)`,
      );
    await this.save({ ...g, dpop_key: g.token_type === 'dpop' ? dpop?.jwk : undefined });
  }

  /** The person's ID token for the enterprise grant, where the definition names no source for it: their
   *  sign-in at the IdP (idp.ts), kept and shared by every server of that IdP. */
  private async idToken(signal?: AbortSignal, standIn?: SignInPort): Promise<string> {
    const e = this.o.config!.enterprise!;
    const host = new URL(e.issuer).host;
    const token = await idpIdToken({
      idp: e,
      store: this.o.store,
      person: standIn ?? this.o.person,
      server: this.o.server,
      timeoutMs: this.o.signInTimeoutMs,
      redirectPort: this.o.config?.redirectPort,
      signal,
      log: this.o.log,
    }).catch((x: unknown) => {
      if (x instanceof AuthError) throw x;
      throw new AuthError(`signing in at the identity provider ${host} failed: ${describe(x)}`);
    });
    if (!token) throw this.needSignIn(`not signed in at the identity provider ${host}`);
    return token;
  }

  /** Forget the sign-in, revoking the tokens where the authorization server can. */
  async signOut(): Promise<string | undefined> {
    await this.load();
    await this.pending?.catch(() => undefined);
    const g = this.grant;
    let note: string | undefined;
    if (g?.client && (g.refresh_token || g.access_token)) {
      try {
        const d = this.discovered ?? (await this.discover());
        for (const t of [g.refresh_token, g.access_token])
          if (t) note = (await revoke(d, g.client, this.o.config ?? {}, t)) ?? note;
      } catch (e) {
        note = describe(e);
      }
    }
    await this.o.store.delete(grantKey(this.o.server));
    this.grant = undefined;
    this.dpop = undefined;
    this.setState('needs-sign-in');
    return note;
  }

  async ensureLoaded(): Promise<void> {
    await this.load();
  }
}
