// Progress of upstream calls relayed to their hosts (docs/protocol.md "Progress"): the host's token is replaced
// upstream by one of mcpx's own, unique on the connection, and restored on the way back; only for a call
// in flight, never backwards (CallContext.progress), nothing after total, at most one report per 20 ms
// per token except the final one.
import type { JsonObject } from '../protocol/jsonrpc';
import type { CallContext } from '../server/provider';

/** Reports per token are passed on no more often than this, except the final one. */
const PROGRESS_MIN_INTERVAL_MS = 20;

type Report = { progress: number; total?: number; message?: string };

export class ProgressRelay {
  private readonly byToken = new Map<
    string,
    { ctx: CallContext; lastAt: number; done: boolean; pending?: Report; timer?: NodeJS.Timeout }
  >();
  private seq = 0;

  /** mcpx's token for a call whose host asked for progress; none otherwise. */
  track(ctx: CallContext): string | undefined {
    if (ctx.meta.progressToken === undefined) return undefined;
    const token = `mcpx-${++this.seq}`;
    this.byToken.set(token, { ctx, lastAt: 0, done: false });
    return token;
  }

  release(token: string): void {
    const r = this.byToken.get(token);
    if (r?.timer) clearTimeout(r.timer);
    this.byToken.delete(token);
  }

  /** A report within the interval is held, not dropped: the newest one held goes out when the interval
   *  ends, or just before the final one (reports that arrive bunched still reach the host in order). */
  relay(p: JsonObject): void {
    const r = this.byToken.get(String(p.progressToken));
    if (!r || r.done || typeof p.progress !== 'number') return;
    const report: Report = {
      progress: p.progress,
      total: typeof p.total === 'number' ? p.total : undefined,
      message: typeof p.message === 'string' ? p.message : undefined,
    };
    const final = report.total !== undefined && report.progress >= report.total;
    const send = (x: Report) => {
      r.lastAt = Date.now();
      r.ctx.progress(x.progress, x.total, x.message);
    };
    const wait = PROGRESS_MIN_INTERVAL_MS - (Date.now() - r.lastAt);
    if (final || wait <= 0) {
      if (r.timer) clearTimeout(r.timer);
      r.timer = undefined;
      if (final && r.pending) send(r.pending);
      r.pending = undefined;
      r.done = final;
      return send(report);
    }
    r.pending = report;
    r.timer ??= setTimeout(() => {
      r.timer = undefined;
      const held = r.pending;
      r.pending = undefined;
      if (held && !r.done && this.byToken.get(String(p.progressToken)) === r) send(held);
    }, wait);
  }
}
