// Signing in to an upstream through the calling client (docs/gateway.md "Signing in through the calling
// client"): where nobody at the host can sign in (the daemon, headless) and the client declared URL-mode
// elicitation, mcpx gives it the authorization URL — a URL elicitation on a request that can carry a
// question (2025-11-25 client/elicitation "URL Mode Elicitation Requests"; 2026-07-28 the same question
// as an input_required round), else the URL-elicitation-required error (-32042, 2025-11-25 only) — waits
// for its loopback redirect, and tells the client notifications/elicitation/complete where its revision
// has it. The sign-in is the server's, shared by every client, as one from the editor or `mcpx auth login`.
import { randomUUID } from 'node:crypto';
import { CODES, ProtocolError } from '../../protocol/errors';
import type { JsonObject } from '../../protocol/jsonrpc';
import { callerDeclares, hearsElicitationComplete, takesUrlRequired } from '../../protocol/questions';
import type { CallContext } from '../../server/provider';
import type { SignInPort } from '../../upstream/auth/authorizer';
import { AuthError, type SignInRequired } from '../../upstream/auth/errors';
import type { Authorizers } from '../../upstream/auth/registry';
import type { Pool } from '../../upstream/pool';

const URL_QUESTION = { mode: 'url' } as const;

export class ClientSignIns {
  constructor(private readonly d: { authorizers: Authorizers; pool: Pool; log: (line: string) => void }) {}

  /** `cause` stopped a call of `ctx` to `server`: sign in through the client where it can be, resolving
   *  once signed in (the call is then made again). Throws `cause` itself where the client cannot be given
   *  the URL (it keeps the message naming the command that fixes it), -32042 where it can be given the
   *  URL but not waited for, or the sign-in's own failure. */
  async through(server: string, ctx: CallContext, cause: SignInRequired): Promise<void> {
    const auth = this.d.authorizers.for(this.d.pool.def(server));
    const canWait = ctx.ask !== undefined;
    if (
      !auth ||
      // A token's caller is a subject, not the person: it never signs the gateway in to an upstream that
      // every client then calls as (docs/security.md "Two ways in", confused deputy).
      ctx.principal !== undefined ||
      !callerDeclares(ctx, 'elicitation/create', URL_QUESTION) ||
      (!canWait && !takesUrlRequired(ctx))
    )
      throw cause;
    const elicitationId = `mcpx-signin-${randomUUID()}`;
    let given!: (q: JsonObject) => void;
    const question = new Promise<JsonObject>((r) => (given = r));
    const person: SignInPort = {
      available: () => true,
      open: async (req) => {
        const access = req.scopes.length ? ` (access: ${req.scopes.join(' ')})` : '';
        const q: JsonObject = {
          mode: 'url',
          message: `mcpx: the server "${server}" needs you to sign in at ${req.issuerHost}${access}. Open the link; the call goes on once you have signed in.`,
          url: req.url.href,
          elicitationId,
        };
        given(q);
        if (!canWait) return;
        const answer = await ctx.ask!('elicitation/create', q, req.signal);
        if (answer.action !== 'accept')
          throw new AuthError(`the sign-in to ${server} was ${answer.action === 'decline' ? 'declined' : 'cancelled'}`);
      },
    };
    this.d.log(`[${server}] no one here can sign in: the calling client is given the sign-in URL`);
    // A request that waits ends the sign-in if it ends; one that cannot wait leaves it running, bounded by
    // auth.signInTimeout, for the client's retry.
    const signedIn = auth.signIn({ person, signal: canWait ? ctx.signal : undefined });
    const complete = () => {
      if (hearsElicitationComplete(ctx)) ctx.tell?.('notifications/elicitation/complete', { elicitationId });
    };
    if (canWait) {
      await signedIn;
      return complete();
    }
    const first = await Promise.race([question, signedIn.then(() => undefined)]);
    // Signed in meanwhile (a sign-in under way was joined): the call goes on.
    if (!first) return;
    signedIn.then(complete, (e: Error) =>
      this.d.log(`[${server}] the sign-in through the client failed: ${e.message}`),
    );
    throw new ProtocolError(
      CODES.UrlElicitationRequired,
      `upstream ${server} needs a sign-in: open the URL given, then try again`,
      { elicitations: [first] },
    );
  }
}
