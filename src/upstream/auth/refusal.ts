// What a refused request asks of the client (2025-11-25 basic/authorization "Error Handling"): a DPoP
// nonce (RFC 9449 §9: the request once more, with it), a 401 (the token renewed, or a sign-in), a 403
// for insufficient scope (a step-up). Once renewed, a 401 again is final.
import { type Challenge, authChallenge } from './challenge';
import { AuthError } from './errors';

/** What one request has used up of its second chances. */
export interface Retries {
  renewed: number;
  stepUps: number;
  nonces: number;
}
export const retries = (): Retries => ({ renewed: 0, stepUps: 0, nonces: 0 });

export interface RetryOptions {
  /** Whether the person may be asked now (after the handshake: connect() asks during it). */
  interactive: boolean;
  signal?: AbortSignal;
}

/** The Authorizer's part in it. */
interface Renewer {
  readonly configured: boolean;
  readonly o: { server: string };
  unauthorized(
    c: Challenge | undefined,
    sent: string | undefined,
    interactive: boolean,
    s?: AbortSignal,
  ): Promise<void>;
  insufficientScope(c: Challenge, attempt: number, s?: AbortSignal): Promise<void>;
}

/** The token an Authorization header carried (after its scheme). */
const tokenOf = (h: Record<string, string>): string | undefined => h.Authorization?.replace(/^\S+\s+/, '');

/** Whether the request answered `res`, which carried `sent`, should be sent again. */
export async function retryAfter(
  a: Renewer,
  r: { res: Response; sent: Record<string, string>; tries: Retries } & RetryOptions,
): Promise<boolean> {
  const { res, tries } = r;
  if (res.status !== 401 && res.status !== 403) return false;
  const challenge = authChallenge(res);
  const nonce = res.headers.has('dpop-nonce');
  if (res.status === 401 && challenge?.error === 'use_dpop_nonce' && r.sent.DPoP && nonce && tries.nonces++ === 0) {
    await res.body?.cancel();
    return true;
  }
  if (res.status === 403 && challenge?.error !== 'insufficient_scope') return false;
  // Without a configured `oauth`, only a challenge makes a 401 a sign-in matter.
  if (res.status === 401 && !challenge && !a.configured) return false;
  await res.body?.cancel();
  if (res.status === 401) {
    if (tries.renewed++ > 0)
      throw new AuthError(`upstream ${a.o.server} refused its access token (HTTP 401) even after renewing it`);
    await a.unauthorized(challenge, tokenOf(r.sent), r.interactive, r.signal);
    return true;
  }
  await a.insufficientScope(challenge!, tries.stepUps++, r.signal);
  return true;
}
