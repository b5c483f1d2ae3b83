// The replicas of a team's gateway on one store (docs/team.md "Replicas"): each has an id, made when it
// starts, and the URL the others reach it at (store.advertise). While it runs it renews `replica/<id>`
// (expiring after store.replicaTtl) and is listed under `member/<id>` (no expiry). A member whose
// `replica/` key has expired has stopped, however it stopped: the first replica to claim its `member/`
// key (compare-and-set) ends what it left running, once (reap). A store that went away and came back
// (a restart that lost its data) hears every live replica announce itself again.
import { randomBytes } from 'node:crypto';
import { type Store, parseJson } from '../store/store';

/** A replica as the others reach it. */
export interface Peer {
  readonly id: string;
  readonly url: string;
}

interface Announcement {
  url: string;
  startedAt: number;
}

/** A replica id: 10 characters of [a-z0-9], the start of every session id it mints. */
export function newReplicaId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(10)].map((b) => alphabet[b % alphabet.length]).join('');
}

export const REPLICA_ID = /^[a-z0-9]{10}$/;

export interface ReplicasOptions {
  store: Store;
  id: string;
  url: string;
  /** store.replicaTtl: a replica not renewed for this long has stopped. */
  ttlMs: number;
  log(line: string): void;
  /** Ends what a stopped replica left running (its tasks and calls read as failed). */
  reap(id: string): Promise<void>;
}

export class Replicas {
  private timer?: NodeJS.Timeout;
  private readonly startedAt = Date.now();
  private offUp?: () => void;
  private stopped = false;
  /** Peers found alive, for a moment: forwarding a burst of requests reads the store once. */
  private readonly seen = new Map<string, { peer: Peer; until: number }>();

  constructor(private readonly o: ReplicasOptions) {}

  get id(): string {
    return this.o.id;
  }

  async start(): Promise<void> {
    await this.announce();
    this.offUp = this.o.store.onUp((up) => {
      if (up) void this.announce().catch((e: Error) => this.o.log(`team: cannot announce this replica: ${e.message}`));
    });
    // Renewed three times per ttl; stopped replicas looked for at each renewal.
    this.timer = setInterval(() => void this.tick(), Math.max(50, Math.floor(this.o.ttlMs / 3)));
    this.timer.unref();
  }

  private async announce(): Promise<void> {
    const a: Announcement = { url: this.o.url, startedAt: this.startedAt };
    await this.o.store.set(`replica/${this.o.id}`, JSON.stringify(a), { ttlMs: this.o.ttlMs });
    await this.o.store.set(`member/${this.o.id}`, JSON.stringify(a));
  }

  private ticking = false;
  private async tick(): Promise<void> {
    if (this.ticking || this.stopped || !this.o.store.up) return;
    this.ticking = true;
    try {
      await this.announce();
      await this.reapStopped();
    } catch (e) {
      this.o.log(`team: ${(e as Error).message}`);
    } finally {
      this.ticking = false;
    }
  }

  /** Every member whose announcement has expired is ended here, once across the team. */
  async reapStopped(): Promise<string[]> {
    const reaped: string[] = [];
    for (const key of await this.o.store.keys('member/')) {
      const id = key.slice('member/'.length);
      if (id === this.o.id || (await this.o.store.get(`replica/${id}`)) !== undefined) continue;
      const held = await this.o.store.get(key);
      // Claimed by deleting it: only the replica whose delete wins reaps.
      if (held === undefined || !(await this.o.store.cas(key, held, undefined))) continue;
      this.o.log(`team: replica ${id} stopped (not heard from for store.replicaTtl); ending what it left running`);
      await this.o.reap(id);
      reaped.push(id);
    }
    return reaped;
  }

  /** The live replica `id`, or undefined when it has stopped (or never was). */
  async peer(id: string): Promise<Peer | undefined> {
    if (id === this.o.id) return { id, url: this.o.url };
    const now = Date.now();
    const known = this.seen.get(id);
    if (known && known.until > now) return known.peer;
    const a = parseJson<Announcement>(await this.o.store.get(`replica/${id}`));
    if (!a || typeof a.url !== 'string') {
      this.seen.delete(id);
      return undefined;
    }
    const peer = { id, url: a.url };
    if (this.seen.size > 256) this.seen.clear();
    this.seen.set(id, { peer, until: now + Math.min(1000, this.o.ttlMs / 4) });
    return peer;
  }

  /** Leaves the team: what this replica runs is ended by `reap` here, its keys removed. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    this.offUp?.();
    try {
      await this.o.reap(this.o.id);
      await this.o.store.del(`replica/${this.o.id}`);
      await this.o.store.del(`member/${this.o.id}`);
    } catch (e) {
      this.o.log(`team: leaving the store: ${(e as Error).message}`);
    }
  }
}
