// The HTTP API's refusals before a call runs (app/api.ts): its status and message, and the calls in
// flight through it, each identity's and all of them bounded (docs/security.md "Bounds").
import type { ServerResponse } from 'node:http';
import type { Settings } from '../config/settings';

/** A refusal before the call: its status and message. */
export class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Calls in flight through the API: each identity's by transport.maxInflightPerIdentity, all of them by
 *  limits.inflight; past either, 429 before the body is read. Released when the response closes. */
export class InFlight {
  private total = 0;
  private readonly byIdentity = new Map<string, number>();

  constructor(private readonly settings: Settings) {}

  admit(identity: string, res: ServerResponse): void {
    const total = this.settings.get<number>('limits.inflight');
    if (this.total >= total)
      throw new Refused(
        429,
        `${total} calls are in flight through the HTTP API (limits.inflight); retry when one has ended`,
      );
    const per = this.settings.get<number>('transport.maxInflightPerIdentity');
    const mine = this.byIdentity.get(identity) ?? 0;
    if (mine >= per)
      throw new Refused(
        429,
        `this identity has ${per} calls in flight (transport.maxInflightPerIdentity); retry when one has ended`,
      );
    this.total++;
    this.byIdentity.set(identity, mine + 1);
    res.once('close', () => {
      this.total--;
      const left = (this.byIdentity.get(identity) ?? 1) - 1;
      if (left > 0) this.byIdentity.set(identity, left);
      else this.byIdentity.delete(identity);
    });
  }
}
