// The activity log as one stream in a team's store (docs/team.md "Activity"): every replica appends each
// record (as it is stored: no result, arguments per activity.arguments), and `mcpx activity`, /v1/activity
// and the editor's feed read it newest first through any replica. Appends never wait and are bounded
// (ACTIVITY_INFLIGHT): past it records are dropped, counted and said once; the stream keeps about
// activity.maxBytes / RECORD_BYTES records.
import { matchesFilter, newestFirst } from '../gateway/activity/files';
import type { ActivityFilter, ActivityRecord } from '../gateway/activity/record';
import type { ActivityStream } from '../gateway/shared';
import { type Store, parseJson } from '../store/store';

const STREAM = 'activity';
/** Appends in flight at most. */
const ACTIVITY_INFLIGHT = 1000;
/** A record's size assumed when activity.maxBytes is turned into a count of records. */
const RECORD_BYTES = 512;
/** Records read back at most for one query: a filter that matches little stops here. */
const MAX_SCAN = 100_000;
const PAGE = 500;

export class StoreActivity implements ActivityStream {
  private inflight = 0;
  private dropped = 0;
  private failing = false;

  constructor(
    private readonly store: Store,
    private readonly maxBytes: () => number,
    private readonly log: (line: string) => void,
  ) {}

  append(record: ActivityRecord): void {
    if (this.inflight >= ACTIVITY_INFLIGHT) {
      if (this.dropped++ === 0)
        this.log(`activity: the store is slow; records are dropped (${ACTIVITY_INFLIGHT} waiting)`);
      return;
    }
    this.inflight++;
    const maxLen = Math.max(1000, Math.floor(this.maxBytes() / RECORD_BYTES));
    this.store
      .append(STREAM, JSON.stringify(record), { maxLen })
      .then(() => {
        if (this.failing || this.dropped)
          this.log(`activity: writing to the store again; ${this.dropped} record(s) were dropped`);
        this.failing = false;
        this.dropped = 0;
      })
      .catch((e: Error) => {
        this.dropped++;
        if (!this.failing)
          this.log(`activity: cannot append to the store (${e.message}); records are dropped until it is back`);
        this.failing = true;
      })
      .finally(() => this.inflight--);
  }

  async read(filter: ActivityFilter, limit: number, oldest: number): Promise<ActivityRecord[]> {
    const since = Math.max(filter.since ?? 0, oldest);
    const out: ActivityRecord[] = [];
    let before: string | undefined;
    for (let scanned = 0; out.length < limit && scanned < MAX_SCAN; ) {
      const page = await this.store.range(STREAM, { before, limit: PAGE, newestFirst: true });
      if (!page.length) break;
      for (const e of page) {
        scanned++;
        before = e.id;
        const r = parseJson<ActivityRecord>(e.value);
        if (!r || typeof r.time !== 'string' || typeof r.client !== 'object') continue;
        if (Date.parse(r.time) < since) return newestFirst(out);
        if (matchesFilter(r, filter, since)) out.push(r);
        if (out.length >= limit) break;
      }
    }
    // In the order they were appended; by time as the files are read (two replicas' appends cross).
    return newestFirst(out);
  }
}
