// The two ways in (docs/security.md "Two ways in"): the endpoint secret, which is the person, and — with
// auth.issuer set — an access token, which is a subject of that issuer with only its own reach. Every
// request to /mcp, a profile's endpoint and /v1 is admitted here or refused: 401 without a valid
// credential (a challenge naming the protected resource metadata), 403 for a token short of a scope, a
// profile's access or a route that is the person's, 503 when the issuer cannot be asked.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Settings } from '../config/settings';
import { CODES, ProtocolError, invalidRequest } from '../protocol/errors';
import { type Principal, missingScopes, principalIdentity } from '../protocol/principal';
import type { Provider } from '../server/provider';
import { EndpointSecret } from './auth';
import { ProtectedResource } from './oauth/resource';
import { HttpRefusal, header } from './refusal';

/** What a request is for: an MCP endpoint or a /v1 route a token may use (`profile` undefined: the
 *  default endpoint), or a /v1 route that is the person's alone. */
export type Surface = { kind: 'mcp' | 'v1'; profile?: string } | { kind: 'person' };

/** The principal a request's token named, once admitted; none for the person (the secret). */
const principals = new WeakMap<IncomingMessage, Principal>();
export const principalOf = (req: IncomingMessage): Principal | undefined => principals.get(req);

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

export interface CredentialOptions {
  settings: Settings;
  provider: Provider;
  secret?: string;
  whereIsTheSecret?: string;
  log?: (line: string) => void;
}

export class Credentials {
  private readonly secret?: EndpointSecret;
  /** Set with auth.issuer: tokens of that issuer are taken. */
  readonly resource?: ProtectedResource;

  constructor(private readonly o: CredentialOptions) {
    if (o.settings.get<string>('auth.issuer')) this.resource = new ProtectedResource(o.settings);
    if (o.secret !== undefined) {
      const known = new EndpointSecret(o.secret);
      // auth.allowSecret off: the secret lets nobody in, wherever it is sent — and is still recognised,
      // so that it is never taken for a token and sent to the issuer's introspection.
      if (!this.resource || this.resource.o.allowSecret) this.secret = known;
      else this.refusedSecret = known;
    }
  }

  private refusedSecret?: EndpointSecret;

  /** Whether `segment` (of /mcp/<segment>) is the endpoint secret. */
  isSecret(segment: string): boolean {
    return this.secret?.matches(segment) ?? false;
  }

  /** The request admitted to `at`, or an HttpRefusal. `pathSecret`: the secret was in the path. */
  async admit(req: IncomingMessage, res: ServerResponse, at: Surface, pathSecret = false): Promise<void> {
    const auth = header(req, 'authorization');
    const token = auth === undefined ? undefined : BEARER.exec(auth)?.[1];
    if (pathSecret) {
      // RFC 6750 §2: one credential per request; a token beside the secret in the path is neither.
      if (token !== undefined && !this.secret!.matches(token))
        throw new HttpRefusal(
          400,
          invalidRequest('Bad request: send one credential, the endpoint secret or a token, not both'),
        );
      return;
    }
    if (!this.secret && !this.resource) return;
    if (token !== undefined && this.secret?.matches(token)) return;
    if (token === undefined || !this.resource) throw this.unauthorized(req, res, at);
    if (this.refusedSecret?.matches(token))
      throw this.unauthorized(req, res, at, 'the endpoint secret is not a way in here (auth.allowSecret is off)');
    const v = await this.resource.verifier.verify(token);
    if ('kind' in v) {
      if (v.kind === 'unavailable') {
        this.o.log?.(`auth: a token could not be verified: ${v.why}`);
        throw new HttpRefusal(
          503,
          new ProtocolError(CODES.InternalError, `The issuer could not be asked about the token: ${v.why}; retry`),
          undefined,
          { 'Retry-After': '5' },
        );
      }
      throw this.unauthorized(req, res, at, v.why);
    }
    const profile = at.kind === 'person' ? undefined : at.profile;
    const resource = this.resource.resourceOf(header(req, 'host') ?? '', profile);
    const gateway = this.resource.resourceOf(header(req, 'host') ?? '');
    if (!v.audiences.some((a) => sameResource(a, resource) || sameResource(a, gateway)))
      throw this.unauthorized(req, res, at, 'the token was not issued for this resource (its aud)');
    const p = v.principal;
    if (at.kind === 'person')
      throw new HttpRefusal(
        403,
        invalidRequest("Forbidden: this route is the person's: it takes the endpoint secret, not an access token"),
      );
    const access = profile === undefined ? undefined : this.o.provider.profileAccess?.(profile, p);
    const scopes = [...this.resource.o.scopes, ...(access?.scopes ?? [])];
    if (missingScopes(p, scopes).length > 0) {
      res.setHeader(
        'WWW-Authenticate',
        this.resource.challenge(resource, scopes, {
          error: 'insufficient_scope',
          description: `this endpoint needs the scopes ${scopes.join(' ')}`,
        }),
      );
      throw new HttpRefusal(
        403,
        invalidRequest(`Forbidden: the token lacks a scope this endpoint needs: ${scopes.join(' ')}`),
      );
    }
    if (access && !access.admitted)
      throw new HttpRefusal(403, invalidRequest("Forbidden: this profile's access does not admit the token's subject"));
    principals.set(req, p);
    // Once per token verified, not per request; the subject escaped (it is the issuer's text).
    if (v.fresh) this.o.log?.(`auth: a token of ${JSON.stringify(principalIdentity(p))} admitted`);
  }

  /** 401: where the metadata is and which scopes to ask for, with the token's fault when one was sent. */
  private unauthorized(req: IncomingMessage, res: ServerResponse, at: Surface, why?: string): HttpRefusal {
    const where = this.o.whereIsTheSecret ? `. ${this.o.whereIsTheSecret}` : '';
    if (!this.resource) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="mcpx"');
      return new HttpRefusal(
        401,
        invalidRequest(
          `Unauthorized: mcpx serves /mcp and /v1 only with its endpoint secret, sent as "Authorization: Bearer <secret>" or in the path /mcp/<secret>${where}`,
        ),
      );
    }
    const profile = at.kind === 'person' ? undefined : at.profile;
    const resource = this.resource.resourceOf(header(req, 'host') ?? '', profile);
    const scopes = [
      ...this.resource.o.scopes,
      ...((profile && this.o.provider.profileAccess?.(profile)?.scopes) || []),
    ];
    const err = why === undefined ? undefined : { error: 'invalid_token' as const, description: why };
    res.setHeader('WWW-Authenticate', this.resource.challenge(resource, scopes, err, this.secret !== undefined));
    const secret = this.secret ? `, or the endpoint secret${where}` : '';
    return new HttpRefusal(
      401,
      invalidRequest(
        `Unauthorized: ${why ? `${why}; ` : ''}send an access token of ${this.resource.o.issuer} as "Authorization: Bearer <token>" (its protected resource metadata: ${this.resource.metadataUrl(resource)})${secret}`,
      ),
    );
  }
}

/** RFC 8707 resource identifiers compared as the 2026-07-28 authorization page asks: scheme and host
 *  in any case, a trailing slash aside. */
function sameResource(a: string, b: string): boolean {
  const norm = (s: string) => {
    try {
      const u = new URL(s);
      return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}${u.search}`;
    } catch {
      return undefined;
    }
  };
  const x = norm(a);
  return x !== undefined && x === norm(b);
}
