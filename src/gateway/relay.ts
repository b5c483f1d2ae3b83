// Progress of upstream calls relayed to their hosts (seeds 001 §4.4): the host's token is replaced
// upstream by one of mcpx's own, unique on the connection, and restored on the way back; only for a call
// in flight, never backwards (CallContext.progress), nothing after total, at most one report per 20 ms
// per token except the final one.
import type { JsonObject } from '../protocol/jsonrpc';
import type { CallContext } from '../server/provider';

/** Reports per token are passed on no more often than this, except the final one. */
export const PROGRESS_MIN_INTERVAL_MS = 20;

export class ProgressRelay {
  private readonly byToken = new Map<string, { ctx: CallContext; lastAt: number; done: boolean }>();
  private seq = 0;

  /** mcpx's token for a call whose host asked for progress; none otherwise. */
  track(ctx: CallContext): string | undefined {
    if (ctx.meta.progressToken === undefined) return undefined;
    const token = `mcpx-${++this.seq}`;
    this.byToken.set(token, { ctx, lastAt: 0, done: false });
    return token;
  }

  release(token: string): void {
    this.byToken.delete(token);
  }

  relay(p: JsonObject): void {
    const r = this.byToken.get(String(p.progressToken));
    if (!r || r.done || typeof p.progress !== 'number') return;
    const total = typeof p.total === 'number' ? p.total : undefined;
    const final = total !== undefined && p.progress >= total;
    const now = Date.now();
    if (!final && now - r.lastAt < PROGRESS_MIN_INTERVAL_MS) return;
    r.lastAt = now;
    r.done = final;
    r.ctx.progress(p.progress, total, typeof p.message === 'string' ? p.message : undefined);
  }
}
