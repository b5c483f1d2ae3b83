// One upstream's sign-in: the Authorization header for its requests, what a 401 or a 403 asks of the
// client, and the person's part through a SignInPort. One per server for the whole gateway, so one
// sign-in serves every client and every connection (docs/gateway.md "Signing in to upstreams").
import { type BearerChallenge, bearerChallenge } from './challenge';
import { type Discovered, discover } from './discovery';
import { AuthError, SignInRequired } from './errors';
import {
  type OAuthConfig,
  authorizationRequest,
  clientCredentials,
  describe,
  exchangeCode,
  refresh,
  registerClient,
  revoke,
} from './grants';
import { listenForRedirect } from './loopback';
import { type Grant, type SecretStore, grantKey, loadGrant } from './store';

export type SignInState = 'signed-in' | 'needs-sign-in' | 'signing-in' | 'not-needed';

/** What the person is asked: which server, whose sign-in page. */
export interface SignInRequest {
  server: string;
  /** The authorization server's host, named to the person before anything opens. */
  issuerHost: string;
  issuer: string;
  scopes: string[];
  /** The authorization URL; the browser's answer comes back to the loopback listener. */
  url: URL;
  signal: AbortSignal;
}

/** The person's part, one per host: the editor (a notification, then the browser), `mcpx auth login`
 *  (prints the URL, opens a browser when there is one), the conformance client (follows the redirect). */
export interface SignInPort {
  /** Whether somebody can sign in now. A headless daemon cannot: the call fails at once, naming the fix. */
  available(): boolean;
  /** Asks the person and, when they agree, sends the browser to `req.url`. Rejects when declined. */
  open(req: SignInRequest): Promise<void>;
  /** A token from an account the host already has for this authorization server (VS Code's GitHub or
   *  Microsoft sign-in), instead of a second sign-in; undefined when it has none or the person declines. */
  existingSession?(issuer: string, scopes: string[]): Promise<string | undefined>;
}

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

const LOOPBACK = /^http:\/\/127\.0\.0\.1:\d+\/callback$/;
const sameRedirect = (a: string | undefined, b: string): boolean =>
  a === undefined || a === b || (LOOPBACK.test(a) && LOOPBACK.test(b));

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
  private lastChallenge?: BearerChallenge;

  constructor(readonly o: AuthorizerOptions) {}

  /** Whether the definition says `auth: {type: "oauth"}` (else OAuth starts only on a Bearer challenge). */
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

  private async load(): Promise<void> {
    if (this.loaded) return;
    this.loaded = true;
    this.grant = await loadGrant(this.o.store, this.o.server);
    if (this.grant?.access_token) this.setState('signed-in');
  }

  /** Whether the stored grant changed under us (another process signed in: `mcpx auth login`). */
  private async reload(): Promise<boolean> {
    const g = await loadGrant(this.o.store, this.o.server);
    const changed = g?.access_token !== this.grant?.access_token;
    this.grant = g;
    return changed && !!g?.access_token;
  }

  private async save(g: Grant): Promise<void> {
    this.grant = g;
    await this.o.store.set(grantKey(this.o.server), JSON.stringify(g));
  }

  /** The Authorization header for the next request, refreshed first when it is about to expire. */
  async header(): Promise<string | undefined> {
    await this.load();
    // A sign-in or refresh under way: this request waits for it; its failure is that request's to report.
    await this.pending?.catch(() => undefined);
    const g = this.grant;
    if (!g?.access_token) return undefined;
    if (g.expires_at !== undefined && g.expires_at - EARLY_MS < Date.now() && g.refresh_token) {
      await this.once(() => this.refreshOrFail());
    }
    return this.grant?.access_token ? `Bearer ${this.grant.access_token}` : undefined;
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

  private async discover(challenge?: BearerChallenge): Promise<Discovered> {
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
      const t = await refresh(d, g.client, this.o.config ?? {}, g);
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

  /** Whether a person can sign in now, or a grant needs nobody (client credentials). */
  canSignIn(): boolean {
    return this.o.config?.grant === 'client_credentials' || (this.o.person?.available() ?? false);
  }

  /** A 401: the token is missing, expired or revoked. Reload (someone else may have signed in), refresh,
   *  or, with no person to ask, fail at once naming the fix. `sent` is the token the refused request
   *  carried. */
  async unauthorized(
    challenge: BearerChallenge | undefined,
    sent: string | undefined,
    /** Whether the person may be asked now (after the handshake: connect() asks during it, unbounded
     *  by the handshake's timeouts). */
    interactive = false,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.load();
    if (challenge) this.lastChallenge = challenge;
    await this.once(async () => {
      if (this.grant?.access_token && `Bearer ${this.grant.access_token}` !== sent) return; // renewed meanwhile
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
      if (this.o.config?.grant === 'client_credentials' || (interactive && this.canSignIn()))
        return this.signInNow(challenge, undefined, signal);
      throw this.needSignIn(why);
    });
  }

  /** A 403 with insufficient_scope: sign in again for the union of what was asked before and what the
   *  challenge names (2026-07-28 basic/authorization "Runtime Insufficient Scope Errors"; docs/protocol.md
   *  "Authorization to upstreams", the step-up reading), at most `stepUpRetries` times per request. */
  async insufficientScope(challenge: BearerChallenge, attempt: number, signal?: AbortSignal): Promise<void> {
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
  private async askChallenge(): Promise<BearerChallenge | undefined> {
    try {
      const res = await fetch(this.o.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
        signal: AbortSignal.timeout(10_000),
      });
      await res.body?.cancel();
      return res.status === 401 ? bearerChallenge(res) : undefined;
    } catch {
      return undefined;
    }
  }

  private scopeFor(d: Discovered, challenge?: BearerChallenge, wanted?: string): string | undefined {
    // 2025-11-25 basic/authorization "Scope Selection Strategy": the challenge's scope, else the
    // resource's scopes_supported, else none.
    const base = wanted ?? challenge?.scope ?? d.scopesSupported?.join(' ');
    // 2026-07-28 basic/authorization "Refresh Tokens": offline_access only where the server lists it.
    const offline = d.as.scopes_supported?.includes('offline_access') ? 'offline_access' : undefined;
    return union(base, this.o.config?.scopes?.join(' '), offline);
  }

  private async signInNow(
    challenge?: BearerChallenge,
    wanted?: string,
    signal?: AbortSignal,
    standIn?: SignInPort,
  ): Promise<void> {
    const cfg = this.o.config ?? {};
    const d = await this.discover(challenge);
    const scope = this.scopeFor(d, challenge, wanted);
    const issuerHost = new URL(d.as.issuer).host;
    const prev = this.grant?.issuer === d.as.issuer ? this.grant : undefined;
    if (cfg.grant === 'client_credentials') {
      const client = await registerClient(d, cfg, '', prev?.client);
      const t = await clientCredentials(d, client, cfg, scope);
      await this.save({ issuer: d.as.issuer, resource: d.resource, client, scope, ...t });
      this.setState('signed-in');
      return;
    }
    const person = standIn ?? this.o.person;
    if (!person?.available()) throw this.needSignIn('not signed in');
    const existing = await person.existingSession?.(d.as.issuer, scope ? scope.split(' ') : []);
    if (existing) {
      await this.save({ issuer: d.as.issuer, resource: d.resource, scope, access_token: existing });
      this.setState('signed-in');
      return;
    }
    this.setState('signing-in');
    const ctl = new AbortController();
    const abort = () => ctl.abort();
    signal?.addEventListener('abort', abort, { once: true });
    const loop = await listenForRedirect(cfg.redirectPort ?? 0, this.o.signInTimeoutMs, ctl.signal);
    try {
      const redirectUri = loop.redirectUri;
      // A registered client is used again only for a redirect it was registered with (any port of the
      // loopback counts as one: RFC 8252 §7.3).
      const known = prev?.client && sameRedirect(prev.client.redirect_uri, redirectUri) ? prev.client : undefined;
      const client = await registerClient(d, cfg, redirectUri, known);
      const req = await authorizationRequest(d, client, redirectUri, scope);
      this.o.log(`[${this.o.server}] sign-in at ${issuerHost} started`);
      await person.open({
        server: this.o.server,
        issuer: d.as.issuer,
        issuerHost,
        scopes: scope ? scope.split(' ') : [],
        url: req.url,
        signal: ctl.signal,
      });
      const callback = await loop.result;
      const t = await exchangeCode(d, client, cfg, req, redirectUri, callback);
      await this.save({ issuer: d.as.issuer, resource: d.resource, client, scope, ...t });
      this.setState('signed-in');
      this.o.log(`[${this.o.server}] signed in at ${issuerHost}`);
    } catch (e) {
      this.setState(this.grant?.access_token ? 'signed-in' : 'needs-sign-in');
      if (e instanceof AuthError || e instanceof SignInRequired) throw e;
      throw new AuthError(`signing in to ${this.o.server} at ${issuerHost} failed: ${describe(e)}`);
    } finally {
      loop.close();
      signal?.removeEventListener('abort', abort);
    }
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
    this.setState('needs-sign-in');
    return note;
  }

  async ensureLoaded(): Promise<void> {
    await this.load();
  }
}
