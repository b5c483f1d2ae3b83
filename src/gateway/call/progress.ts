// Progress of upstream calls relayed to their hosts (docs/protocol.md "Progress"): the host's token is replaced
// upstream by one of mcpx's own, unique on the connection, and restored on the way back; only for a call
// in flight, never backwards (CallContext.progress), nothing after total, at most one report per 20 ms
// per token except the final one.
import type { JsonObject } from '../../protocol/jsonrpc';
import type { CallContext } from '../../server/provider';

/** Reports per token are passed on no more often than this, except the final one. */
const PROGRESS_MIN_INTERVAL_MS = 20;

export type Report = { progress: number; total?: number; message?: string };

export class ProgressRelay {
  private readonly byToken = new Map<
    string,
    {
      ctx: CallContext;
      /** The upstream connection the call went to: only it may report on the token. */
      conn: string;
      lastAt: number;
      done: boolean;
      pending?: Report;
      timer?: NodeJS.Timeout;
    }
  >();
  private seq = 0;

  /** mcpx's token for a call on connection `conn` whose host asked for progress; none otherwise. */
  track(ctx: CallContext, conn: string): string | undefined {
    if (ctx.meta.progressToken === undefined) return undefined;
    const token = `mcpx-${++this.seq}`;
    this.byToken.set(token, { ctx, conn, lastAt: 0, done: false });
    return token;
  }

  /** The call that holds `token` on connection `conn`, if one does. */
  callOf(token: unknown, conn: string): CallContext | undefined {
    const r = this.byToken.get(String(token));
    return r && r.conn === conn ? r.ctx : undefined;
  }

  release(token: string): void {
    const r = this.byToken.get(token);
    if (r?.timer) clearTimeout(r.timer);
    this.byToken.delete(token);
  }

  /** A report within the interval is held, not dropped: the newest one held goes out when the interval
   *  ends, or just before the final one (reports that arrive bunched still reach the host in order).
   *  Only the connection the call went to reports on its token: tokens are mcpx's own and easy to guess,
   *  and another upstream must not move (or end) a call's progress. `sent` hears each report relayed. */
  relay(p: JsonObject, conn: string, sent: (report: Report) => void): void {
    const r = this.byToken.get(String(p.progressToken));
    if (!r || r.conn !== conn || r.done || typeof p.progress !== 'number') return;
    const report: Report = {
      progress: p.progress,
      total: typeof p.total === 'number' ? p.total : undefined,
      message: typeof p.message === 'string' ? p.message : undefined,
    };
    const final = report.total !== undefined && report.progress >= report.total;
    const send = (x: Report) => {
      r.lastAt = Date.now();
      r.ctx.progress(x.progress, x.total, x.message);
      sent(x);
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

/** Changes an upstream announces — a list changed, a watched resource was updated — are passed on at most
 *  once per this interval per (server, what changed); the last one within it goes out when it ends. */
const CHANGE_MIN_INTERVAL_MS = 100;

/** One announcement per key per interval, the last one held for its end (docs/security.md "Bounds"): an
 *  upstream that says list_changed 100,000 times a second makes its clients refetch ten times a second at
 *  most, and the views redraw as often. An entry lives one interval after its last announcement. */
export class Coalescer {
  private readonly keys = new Map<string, { timer: NodeJS.Timeout; held?: () => void }>();

  constructor(private readonly ms = CHANGE_MIN_INTERVAL_MS) {}

  run(key: string, fn: () => void): void {
    const e = this.keys.get(key);
    if (e) {
      e.held = fn;
      return;
    }
    fn();
    this.arm(key);
  }

  private arm(key: string): void {
    const timer = setTimeout(() => {
      const held = this.keys.get(key)?.held;
      this.keys.delete(key);
      if (held) this.run(key, held);
    }, this.ms);
    timer.unref();
    this.keys.set(key, { timer });
  }

  close(): void {
    for (const e of this.keys.values()) clearTimeout(e.timer);
    this.keys.clear();
  }
}

/** Log messages one upstream connection may send through mcpx: a burst, then so many a second. */
export const LOG_MESSAGES = { perSecond: 1000, burst: 1000 } as const;

/** A budget of messages per second (a token bucket): `take()` says whether one more may pass; what does
 *  not is counted, and `dropped()` hands the count over once. */
export class Rate {
  private tokens: number;
  private last = Date.now();
  private count = 0;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }

  take(): boolean {
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.perSecond) / 1000);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens--;
      return true;
    }
    this.count++;
    return false;
  }

  dropped(): number {
    const n = this.count;
    this.count = 0;
    return n;
  }
}
