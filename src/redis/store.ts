// The store on Redis (docs/team.md "The store"), through node-redis's client (@redis/client): its own
// bundle, dist/store-redis.js, required by store/open.ts only when store.url names Redis, so neither
// dist/mcpx.js nor dist/extension.js holds a Redis client. Valkey speaks the same protocol. Every key and
// channel starts with store.prefix; the default `{mcpx}:` is a hash tag, so under Redis Cluster every key
// lives in one slot (the compare-and-set script and SCAN reach one node).
import { createClient, createCluster } from '@redis/client';
import type { RangeOptions, SetOptions, Store, StreamEntry } from '../store/store';
import { StoreError } from '../store/store';

export interface RedisStoreOptions {
  url: string;
  prefix: string;
  /** Redis Cluster: `url` is one of its nodes. */
  cluster?: boolean;
  log(line: string): void;
  /** How long to wait for the first connection before the gateway refuses to start. */
  connectTimeoutMs?: number;
}

/** Compare-and-set in one step on the server: ARGV = hasExpected, expected, hasNext, next, ttlMs. */
const CAS = `local cur = redis.call('GET', KEYS[1])
if ARGV[1] == '0' then if cur then return 0 end elseif cur ~= ARGV[2] then return 0 end
if ARGV[3] == '0' then redis.call('DEL', KEYS[1])
elseif tonumber(ARGV[5]) > 0 then redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[5])
else redis.call('SET', KEYS[1], ARGV[4]) end
return 1`;

/** The URL as a log may show it: no user or password. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return 'an unparsable URL';
  }
}

const escapeGlob = (s: string): string => s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

type Command = ReadonlyArray<string>;
/** What both kinds of node-redis connection (a client, a cluster) are used for here. */
interface Conn {
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  on(event: 'error', fn: (e: Error) => void): unknown;
  SUBSCRIBE(channel: string, fn: (m: string | Buffer) => void): Promise<void>;
  UNSUBSCRIBE(channel: string, fn: (m: string | Buffer) => void): Promise<void>;
}
interface Client {
  sendCommand(key: string | undefined, args: Command): Promise<unknown>;
  scan(pattern: string): AsyncIterable<string>;
  subscribe(channel: string, fn: (m: string | Buffer) => void): Promise<void>;
  unsubscribe(channel: string, fn: (m: string | Buffer) => void): Promise<void>;
  close(): Promise<void>;
}

export class RedisStore implements Store {
  readonly kind = 'redis';
  readonly where: string;
  private ready = false;
  private readonly listeners = new Set<(up: boolean) => void>();
  private client?: Client;
  private downSince?: number;

  private constructor(private readonly o: RedisStoreOptions) {
    this.where = `${o.cluster ? 'Redis Cluster' : 'Redis'} at ${shown(o.url)}`;
  }

  /** Connected, or a StoreError naming the store once connectTimeoutMs has passed. */
  static async open(o: RedisStoreOptions): Promise<RedisStore> {
    const s = new RedisStore(o);
    await s.connect();
    return s;
  }

  get up(): boolean {
    return this.ready;
  }

  onUp(fn: (up: boolean) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private closing = false;

  private state(up: boolean): void {
    if (up === this.ready || this.closing) return;
    this.ready = up;
    if (up) {
      if (this.downSince !== undefined)
        this.o.log(`store: ${this.where} is back after ${Math.round((Date.now() - this.downSince) / 1000)} s`);
      this.downSince = undefined;
    } else {
      this.downSince = Date.now();
      this.o.log(`store: ${this.where} went away; reconnecting`);
    }
    for (const l of this.listeners) l(up);
  }

  private async connect(): Promise<void> {
    const socket = {
      connectTimeout: 5000,
      // Again and again, at most every 2 s: a store that restarts is found again.
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000),
    };
    // Commands fail at once while the store is away, never queued without bound.
    const common = { socket, disableOfflineQueue: true, RESP: 2 as const };
    let reported = false;
    const onReady = () => {
      reported = false;
      this.state(true);
    };
    const onError = (e: Error) => {
      if (this.ready || !reported) this.o.log(`store: ${this.where}: ${e.message}`);
      reported = true;
    };
    // One connection for commands, one for subscriptions (node-redis makes its subscriptions again on a
    // reconnect); the state follows the first.
    let parts: { main: Conn; sub: Conn; send: Client['sendCommand']; scan: Client['scan'] };
    if (this.o.cluster) {
      const cluster = createCluster({ rootNodes: [{ url: this.o.url }], defaults: common });
      cluster.on('node-ready', onReady);
      cluster.on('node-reconnecting', () => this.state(false));
      parts = {
        main: cluster as unknown as Conn,
        sub: cluster.duplicate() as unknown as Conn,
        send: (key, args) => cluster.sendCommand(key, false, args as string[]),
        scan: (pattern) => scanNode(cluster as unknown as SlotNodes, this.o.prefix, pattern),
      };
    } else {
      const c = createClient({ url: this.o.url, ...common });
      c.on('ready', onReady);
      c.on('reconnecting', () => this.state(false));
      c.on('end', () => this.state(false));
      parts = {
        main: c as unknown as Conn,
        sub: c.duplicate() as unknown as Conn,
        send: (_key, args) => c.sendCommand(args),
        scan: (pattern) => scanClient(c, pattern),
      };
    }
    const { main, sub } = parts;
    main.on('error', onError);
    sub.on('error', onError);
    this.client = {
      sendCommand: parts.send,
      scan: parts.scan,
      subscribe: (ch, fn) => sub.SUBSCRIBE(ch, fn),
      unsubscribe: (ch, fn) => sub.UNSUBSCRIBE(ch, fn),
      close: async () => {
        await Promise.allSettled([main.close(), sub.close()]);
      },
    };
    await this.within(Promise.all([main.connect(), sub.connect()]));
    this.state(true);
  }

  private async within(p: Promise<unknown>): Promise<void> {
    const ms = this.o.connectTimeoutMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StoreError(`the store (${this.where}) did not answer within ${ms} ms`)), ms);
    });
    try {
      await Promise.race([p, late]);
    } catch (e) {
      await this.client?.close();
      throw e instanceof StoreError
        ? e
        : new StoreError(`cannot reach the store (${this.where}): ${(e as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }

  private k(key: string): string {
    return `${this.o.prefix}${key}`;
  }

  private async cmd<T>(key: string | undefined, args: Command): Promise<T> {
    try {
      return (await this.client!.sendCommand(key, args)) as T;
    } catch (e) {
      throw new StoreError(`the store (${this.where}) refused ${args[0]}: ${(e as Error).message}`);
    }
  }

  // ---- key-value

  async get(key: string): Promise<string | undefined> {
    const k = this.k(key);
    return (await this.cmd<string | null>(k, ['GET', k])) ?? undefined;
  }

  async set(key: string, value: string, o: SetOptions = {}): Promise<boolean> {
    const k = this.k(key);
    const args = ['SET', k, value];
    if (o.ttlMs !== undefined) args.push('PX', String(Math.max(1, Math.round(o.ttlMs))));
    if (o.ifAbsent) args.push('NX');
    return (await this.cmd<string | null>(k, args)) !== null;
  }

  async cas(key: string, expected: string | undefined, next: string | undefined, o: { ttlMs?: number } = {}) {
    const k = this.k(key);
    const ttl = o.ttlMs === undefined ? 0 : Math.max(1, Math.round(o.ttlMs));
    const argv = [
      expected === undefined ? '0' : '1',
      expected ?? '',
      next === undefined ? '0' : '1',
      next ?? '',
      String(ttl),
    ];
    return (await this.cmd<number>(k, ['EVAL', CAS, '1', k, ...argv])) === 1;
  }

  async del(key: string): Promise<boolean> {
    const k = this.k(key);
    return (await this.cmd<number>(k, ['DEL', k])) > 0;
  }

  async keys(prefix: string): Promise<string[]> {
    const out: string[] = [];
    try {
      for await (const k of this.client!.scan(`${escapeGlob(this.k(prefix))}*`))
        out.push(k.slice(this.o.prefix.length));
    } catch (e) {
      throw new StoreError(`the store (${this.where}) refused SCAN: ${(e as Error).message}`);
    }
    return [...new Set(out)];
  }

  // ---- streams

  async append(stream: string, value: string, o: { maxLen?: number } = {}): Promise<string> {
    const k = this.k(stream);
    const trim = o.maxLen === undefined ? [] : ['MAXLEN', '~', String(o.maxLen)];
    return this.cmd<string>(k, ['XADD', k, ...trim, '*', 'v', value]);
  }

  async range(stream: string, o: RangeOptions): Promise<StreamEntry[]> {
    const k = this.k(stream);
    const low = o.after === undefined ? '-' : `(${o.after}`;
    const high = o.before === undefined ? '+' : `(${o.before}`;
    const args = o.newestFirst
      ? ['XREVRANGE', k, high, low, 'COUNT', String(o.limit)]
      : ['XRANGE', k, low, high, 'COUNT', String(o.limit)];
    const rows = await this.cmd<Array<[string, string[]]>>(k, args);
    return rows.map(([id, fields]) => ({ id, value: fields[fields.indexOf('v') + 1] ?? '' }));
  }

  // ---- publish/subscribe

  async publish(channel: string, message: string): Promise<void> {
    const c = this.k(channel);
    await this.cmd(c, ['PUBLISH', c, message]);
  }

  async subscribe(channel: string, fn: (message: string) => void): Promise<() => Promise<void>> {
    const c = this.k(channel);
    const listener = (m: string | Buffer) => fn(String(m));
    try {
      await this.client!.subscribe(c, listener);
    } catch (e) {
      throw new StoreError(`the store (${this.where}) refused SUBSCRIBE: ${(e as Error).message}`);
    }
    return async () => {
      await this.client!.unsubscribe(c, listener).catch(() => undefined);
    };
  }

  async close(): Promise<void> {
    this.closing = true;
    this.listeners.clear();
    await this.client?.close();
  }
}

interface Scanner {
  sendCommand(args: string[]): Promise<unknown>;
}

async function* scanClient(c: Scanner, pattern: string): AsyncIterable<string> {
  let cursor = '0';
  do {
    const [next, keys] = (await c.sendCommand(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '500'])) as [
      string,
      string[],
    ];
    cursor = next;
    yield* keys;
  } while (cursor !== '0');
}

/** Under Cluster every key of the store is in the prefix's hash slot: the master that holds it is
 *  scanned. */
interface SlotNodes {
  slots: Array<{ master: unknown }>;
  nodeClient(node: unknown): Scanner | Promise<Scanner>;
}

async function* scanNode(cluster: SlotNodes, prefix: string, pattern: string): AsyncIterable<string> {
  const master = cluster.slots[slotOf(prefix)]?.master;
  if (!master) throw new Error(`no node holds the slot of ${prefix}`);
  yield* scanClient(await cluster.nodeClient(master), pattern);
}

/** The hash slot of a key (CRC16/XMODEM of its hash tag, mod 16384: the Redis Cluster specification). */
function slotOf(key: string): number {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  const tag = close > open + 1 ? key.slice(open + 1, close) : key;
  let crc = 0;
  for (const b of Buffer.from(tag)) {
    crc ^= b << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

/** What store/open.ts requires from this bundle. */
export const openRedisStore = (o: RedisStoreOptions): Promise<Store> => RedisStore.open(o);
