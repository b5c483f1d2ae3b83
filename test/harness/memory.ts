// In-memory drives of the server: McpServer behind a Runner with a recording channel (no process, no
// socket), a provider whose calls a test holds and releases, and a PassThrough pair for StdioTransport.
import { PassThrough } from 'node:stream';
import { policyFrom } from '../../src/config/policy';
import { Settings } from '../../src/config/settings';
import assert from 'node:assert/strict';
import type {
  ErrorResponse,
  Id,
  JsonObject,
  Notification,
  Request,
  Response,
  ResultResponse,
} from '../../src/protocol/jsonrpc';
import { Conn, type TransportKind } from '../../src/server/conn';
import type { CallContext, ListKind, Provider } from '../../src/server/provider';
import { toolsOf } from '../fixtures/provider';
import { type Channel, Runner } from '../../src/server/runner';
import { McpServer, type ServerInfo } from '../../src/server/server';
import { StdioTransport } from '../../src/transport/stdio';

/** A request as a client writes it. */
export const req = (id: Id, method: string, params?: JsonObject): Request =>
  params ? { jsonrpc: '2.0', id, method, params } : { jsonrpc: '2.0', id, method };
/** A well-formed 2026-07-28 request: version and capabilities in `_meta`. */
export const modern = (id: Id, method: string, params: JsonObject = {}, meta: JsonObject = {}): Request =>
  req(id, method, {
    ...params,
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      ...meta,
    },
  });
/** The result of an answer, asserted to be one. */
export const result = (r: Response | undefined): JsonObject => {
  assert.ok(r && 'result' in r, `expected a result, got ${JSON.stringify(r)}`);
  return (r as ResultResponse).result;
};
/** The error of an answer, asserted to be one. */
export const error = (r: Response | undefined) => {
  assert.ok(r && 'error' in r, `expected an error, got ${JSON.stringify(r)}`);
  return (r as ErrorResponse).error;
};

export const TEST_SERVER_INFO: ServerInfo = { name: 'mcpx-memory', title: 'mcpx in memory', version: '9.9.9' };

type Frame = Notification | Request;

/** Everything a request's channel carried, in order; waitFor() resolves on a frame already seen or to come. */
export class Recorder implements Channel {
  readonly frames: Frame[] = [];
  private readonly waiters: Array<{ pred: (f: Frame) => boolean; resolve(f: Frame): void }> = [];

  emit = (n: Notification): void => this.push(n);
  send = (r: Request): void => this.push(r);

  get emitted(): Notification[] {
    return this.frames.filter((f): f is Notification => !('id' in f));
  }
  get sent(): Request[] {
    return this.frames.filter((f): f is Request => 'id' in f);
  }

  waitFor(pred: (f: Frame) => boolean): Promise<Frame> {
    const seen = this.frames.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ pred, resolve }));
  }

  private push(f: Frame): void {
    this.frames.push(f);
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i]!;
      if (w.pred(f)) {
        this.waiters.splice(i, 1);
        w.resolve(f);
      }
    }
  }
}

export interface MemoryServer {
  server: McpServer;
  settings: Settings;
  /** A Runner over a fresh Conn (or the one given), and the recorder to pass as its channel. */
  runner(conn?: Conn): { runner: Runner; conn: Conn; channel: Recorder };
  close(): void;
}

/** An McpServer over `provider` (the settings given as the 'flag' layer), driven in memory. */
export function memoryServer(
  provider: Provider,
  values: Record<string, unknown> = {},
  kind: TransportKind = 'http',
): MemoryServer {
  const settings = new Settings([{ source: 'flag', values }]);
  const server = new McpServer({ provider, settings, policy: policyFrom(settings), serverInfo: TEST_SERVER_INFO });
  let n = 0;
  return {
    server,
    settings,
    runner(conn = new Conn(kind, `memory:${++n}`)) {
      return { runner: new Runner(server, conn), conn, channel: new Recorder() };
    },
    close: () => server.close(),
  };
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(v: T): void;
  reject(e: unknown): void;
}
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A provider with one tool, `hold`: a call with `{key}` waits until the test releases that key (and
 *  answers with it), or until its request is aborted. Started and aborted calls are recorded by key. */
export interface HeldProvider extends Provider {
  started: string[];
  aborted: string[];
  /** Resolves when a call with `key` has started. */
  whenStarted(key: string): Promise<void>;
  release(key: string): void;
  /** Announce a list change, as a gateway does when an upstream's list changes. */
  changed(kind: ListKind): void;
}

const HOLD = [{ name: 'hold', inputSchema: { type: 'object', properties: { key: { type: 'string' } } } }];

export function heldProvider(): HeldProvider {
  const gates = new Map<string, Deferred<void>>();
  const starts = new Map<string, Deferred<void>>();
  const gate = (m: Map<string, Deferred<void>>, key: string) => {
    const d = m.get(key) ?? deferred();
    m.set(key, d);
    return d;
  };
  let listener: ((kind: ListKind) => void) | undefined;
  const p: HeldProvider = {
    started: [],
    aborted: [],
    capabilities: () => ({ tools: true, listChanged: { tools: true } }),
    listTools: async () => HOLD,
    resolveTool: toolsOf(
      () => HOLD,
      async (name: string, args: JsonObject, ctx: CallContext) => {
        const key = String(args.key);
        p.started.push(key);
        gate(starts, key).resolve();
        const g = gate(gates, key);
        await new Promise<void>((resolve, reject) => {
          const onAbort = () => {
            p.aborted.push(key);
            reject(ctx.signal.reason);
          };
          if (ctx.signal.aborted) return onAbort();
          ctx.signal.addEventListener('abort', onAbort, { once: true });
          void g.promise.then(() => {
            ctx.signal.removeEventListener('abort', onAbort);
            resolve();
          });
        });
        return { content: [{ type: 'text', text: `${name} ${key}` }] };
      },
    ),
    whenStarted: (key) => gate(starts, key).promise,
    release: (key) => gate(gates, key).resolve(),
    onListChanged(l) {
      listener = l;
    },
    changed: (kind) => listener?.(kind),
  };
  return p;
}

/** StdioTransport over in-memory pipes: write lines in, read the JSON messages it writes out. */
export function memoryStdio(server: McpServer, drainMs = 1000) {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new StdioTransport({ server, input, output, drainMs, identity: 'memory-stdio' });
  const messages: unknown[] = [];
  let buf = '';
  output.setEncoding('utf8');
  output.on('data', (chunk: string) => {
    buf += chunk;
    const lines = buf.split('\n');
    buf = lines.pop()!;
    for (const line of lines) messages.push(JSON.parse(line) as unknown);
  });
  const next = (pred: (m: unknown) => boolean): Promise<unknown> =>
    new Promise((resolve) => {
      const seen = messages.find(pred);
      if (seen !== undefined) return resolve(seen);
      const on = () => {
        const m = messages.find(pred);
        if (m === undefined) return;
        output.off('data', on);
        resolve(m);
      };
      // 'data' listeners run in order: the parser above has pushed the messages before this runs.
      output.on('data', on);
    });
  return {
    transport,
    messages,
    write: (msg: unknown) => input.write(`${typeof msg === 'string' ? msg : JSON.stringify(msg)}\n`),
    next,
    end: () => input.end(),
  };
}
