// Test clients that speak MCP on real pipes and real loopback HTTP, and validate every frame the server
// sends against the official schema of the revision the client speaks (strict: see schema.ts).
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { assertServerFrame, type Revision } from './schema';

export type Json = Record<string, unknown>;
const MODERN = '2026-07-28';

export const CLIENT_INFO = { name: 'mcpx-tests', version: '1.0.0' };

/** Parse an SSE body into the JSON of its data events. */
export function parseSse(text: string): unknown[] {
  const out: unknown[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).replace(/^ /, ''))
      .join('\n');
    if (data) out.push(JSON.parse(data));
  }
  return out;
}

/** Request params with `meta`; in 2026-07-28 also the per-request version and capabilities. */
function withMeta(rev: Revision, params: Json, meta: Json, capabilities: Json, extra: Json = {}): Json {
  if (rev !== MODERN) return Object.keys(meta).length ? { ...params, _meta: meta } : params;
  return {
    ...params,
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': capabilities,
      ...extra,
      ...meta,
    },
  };
}

export interface HttpReply {
  status: number;
  headers: Headers;
  contentType: string;
  /** Every JSON-RPC frame in the body (one for JSON, each event for SSE, each element for a batch). */
  frames: Json[];
  /** The raw body, for keep-alive comments and the like. */
  text: string;
}

export interface Exchange {
  reply: HttpReply;
  response?: Json;
  result?: Json;
  error?: { code: number; message: string; data?: unknown };
  notifications: Json[];
}

/** Validates frames of one body against `rev`, knowing which request each id answered. */
function validate(rev: Revision, frames: Json[], methods: Map<unknown, string>): void {
  for (const f of frames) {
    const method = 'id' in f ? methods.get(f.id) : undefined;
    assertServerFrame(rev, f, method);
  }
}

export interface HttpClientOptions {
  capabilities?: Json;
  headers?: Record<string, string>;
  /** Do not validate (for frames a test deliberately sends under a wrong revision). */
  noValidate?: boolean;
  /** The clientInfo it declares (CLIENT_INFO by default). */
  clientInfo?: Json;
}

export class HttpClient {
  sessionId?: string;
  private nextId = 1;
  readonly seen: Json[] = [];

  constructor(
    readonly url: string,
    public rev: Revision,
    readonly opts: HttpClientOptions = {},
  ) {}

  id(): number {
    return this.nextId++;
  }

  /** Default headers for this client's revision. */
  headers(body?: unknown): Record<string, string> {
    const h: Record<string, string> = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...this.opts.headers,
    };
    if (this.sessionId) h['Mcp-Session-Id'] = this.sessionId;
    if (this.rev === MODERN) {
      h['MCP-Protocol-Version'] = MODERN;
      if (body && typeof body === 'object' && !Array.isArray(body)) {
        const b = body as Json;
        if (typeof b.method === 'string' && 'id' in b) h['Mcp-Method'] = b.method;
        const p = b.params as Json | undefined;
        const name =
          b.method === 'resources/read'
            ? p?.uri
            : b.method === 'tools/call' || b.method === 'prompts/get'
              ? p?.name
              : undefined;
        if (typeof name === 'string')
          h['Mcp-Name'] =
            /^[\x20-\x7e]*$/.test(name) && name.trim() === name
              ? name
              : `=?base64?${Buffer.from(name).toString('base64')}?=`;
      }
    } else if (this.sessionId && this.rev >= '2025-06-18') {
      h['MCP-Protocol-Version'] = this.rev;
    }
    return h;
  }

  /** POST any body; frames are validated unless the client says not to. */
  async post(
    body: unknown,
    headers?: Record<string, string>,
    opts: { raw?: string; signal?: AbortSignal } = {},
  ): Promise<HttpReply> {
    const methods = new Map<unknown, string>();
    for (const m of Array.isArray(body) ? body : [body]) {
      if (m && typeof m === 'object' && 'id' in m && 'method' in m)
        methods.set((m as Json).id, String((m as Json).method));
    }
    const res = await fetch(this.url, {
      method: 'POST',
      headers: headers ?? this.headers(body),
      body: opts.raw ?? JSON.stringify(body),
      signal: opts.signal,
    });
    const text = await res.text();
    const contentType = res.headers.get('content-type') ?? '';
    let frames: Json[] = [];
    if (contentType.includes('text/event-stream')) frames = parseSse(text) as Json[];
    else if (contentType.includes('application/json') && text) {
      const v = JSON.parse(text) as unknown;
      frames = (Array.isArray(v) ? v : [v]) as Json[];
    }
    if (!this.opts.noValidate) {
      if (contentType.includes('application/json') && text.trim().startsWith('[')) {
        assertServerFrame(this.rev, JSON.parse(text), Object.fromEntries([...methods].map(([k, v]) => [String(k), v])));
      } else validate(this.rev, frames, methods);
    }
    this.seen.push(...frames);
    return { status: res.status, headers: res.headers, contentType, frames, text };
  }

  /** The params of a request, with this client's per-request _meta in 2026-07-28. */
  params(params: Json = {}, meta: Json = {}): Json {
    return withMeta(this.rev, params, meta, this.opts.capabilities ?? {}, {
      'io.modelcontextprotocol/clientInfo': this.opts.clientInfo ?? CLIENT_INFO,
    });
  }

  async request(
    method: string,
    params: Json = {},
    o: { meta?: Json; headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<Exchange> {
    const body = { jsonrpc: '2.0', id: this.id(), method, params: this.params(params, o.meta) };
    const reply = await this.post(body, { ...this.headers(body), ...o.headers }, { signal: o.signal });
    const response = reply.frames.find((f) => 'id' in f && f.id === body.id);
    return {
      reply,
      response,
      result: response?.result as Json | undefined,
      error: response?.error as Exchange['error'],
      notifications: reply.frames.filter((f) => !('id' in f)),
    };
  }

  async notify(method: string, params?: Json): Promise<HttpReply> {
    const body = params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    return this.post(body);
  }

  /** Legacy handshake: initialize, keep the session, send initialized. */
  async initialize(version: string = this.rev): Promise<Exchange> {
    const ex = await this.request('initialize', {
      protocolVersion: version,
      capabilities: this.opts.capabilities ?? {},
      clientInfo: this.opts.clientInfo ?? CLIENT_INFO,
    });
    this.sessionId = ex.reply.headers.get('mcp-session-id') ?? undefined;
    if (ex.result) await this.notify('notifications/initialized');
    return ex;
  }
}

/** A real child process spoken to over its stdin/stdout. */
export class StdioClient {
  readonly child: ChildProcessWithoutNullStreams;
  private nextId = 1;
  private readonly waiting = new Map<unknown, { method: string; resolve: (f: Json) => void }>();
  /** Every frame received, in order. */
  readonly frames: Json[] = [];
  readonly errors: string[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(
    command: string,
    args: string[],
    public rev: Revision,
    readonly capabilities: Json = {},
    env?: NodeJS.ProcessEnv,
  ) {
    this.child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
    this.child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((r) => this.child.on('exit', (code) => r(code)));
    createInterface({ input: this.child.stdout }).on('line', (line) => this.onLine(line));
  }

  private onLine(line: string): void {
    const v = JSON.parse(line) as Json | Json[];
    const frames = Array.isArray(v) ? v : [v];
    if (Array.isArray(v)) {
      const m = Object.fromEntries(
        v.filter((f) => 'id' in f).map((f) => [String(f.id), this.waiting.get(f.id)?.method ?? '']),
      );
      assertServerFrame(this.rev, v, m);
    }
    for (const f of frames) {
      const isRequest = 'id' in f && typeof f.method === 'string';
      const w = 'id' in f && !isRequest ? this.waiting.get(f.id) : undefined;
      assertServerFrame(this.rev, f, w?.method);
      this.frames.push(f);
      if (isRequest) {
        // A question from the server: answered by the test's hook.
        void Promise.resolve(this.answer(f)).then((result) => this.send({ jsonrpc: '2.0', id: f.id, result }));
        continue;
      }
      if (w) {
        this.waiting.delete(f.id);
        w.resolve(f);
      } else if ('id' in f && f.id === undefined) this.errors.push(line);
    }
    if (Array.isArray(v)) this.batchWaiters.shift()?.(v);
  }

  private batchWaiters: Array<(v: Json[]) => void> = [];
  /** Answers the server's requests (questions); default: an empty result. */
  answer: (req: Json) => Json | Promise<Json> = () => ({});

  id(): number {
    return this.nextId++;
  }

  send(msg: unknown): void {
    this.child.stdin.write((typeof msg === 'string' ? msg : JSON.stringify(msg)) + '\n');
  }

  params(params: Json = {}, meta: Json = {}): Json {
    return withMeta(this.rev, params, meta, this.capabilities);
  }

  /** Send a request and resolve with its response frame. */
  request(method: string, params: Json = {}, meta: Json = {}, id: unknown = this.id()): Promise<Json> {
    return new Promise((resolve) => {
      this.waiting.set(id, { method, resolve });
      this.send({ jsonrpc: '2.0', id, method, params: this.params(params, meta) });
    });
  }

  /** Send raw text and resolve with the next frame that has no waiter (an error without id, say). */
  nextFrame(): Promise<Json> {
    const n = this.frames.length;
    return new Promise((resolve) => {
      const check = () => (this.frames.length > n ? resolve(this.frames[n]!) : setTimeout(check, 5));
      check();
    });
  }

  /** A request of this client (with its per-request _meta in 2026-07-28), for pipeline(). */
  frame(method: string, params: Json = {}, meta: Json = {}, id: unknown = this.id()): Json {
    return { jsonrpc: '2.0', id, method, params: this.params(params, meta) };
  }

  /** The legacy handshake's two messages, initialize and initialized, for pipeline(). */
  handshake(version: string = this.rev): Json[] {
    return [
      this.frame('initialize', { protocolVersion: version, capabilities: this.capabilities, clientInfo: CLIENT_INFO }),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ];
  }

  /** Writes every message in one write, as a client that does not wait for answers does (a pipe allows
   *  it); resolves with each request's response, in the order given. */
  pipeline(messages: Json[]): Promise<Json[]> {
    const answers: Promise<Json>[] = [];
    for (const m of messages) {
      if (!('id' in m) || typeof m.method !== 'string') continue;
      answers.push(new Promise((resolve) => this.waiting.set(m.id, { method: String(m.method), resolve })));
    }
    this.child.stdin.write(messages.map((m) => `${JSON.stringify(m)}\n`).join(''));
    return Promise.all(answers);
  }

  batch(items: unknown[]): Promise<Json[]> {
    for (const i of items) {
      const m = i as Json;
      if ('id' in m && 'method' in m) this.waiting.set(m.id, { method: String(m.method), resolve: () => undefined });
    }
    return new Promise((resolve) => {
      this.batchWaiters.push(resolve);
      this.send(items);
    });
  }

  async initialize(version: string = this.rev): Promise<Json> {
    const r = await this.request('initialize', {
      protocolVersion: version,
      capabilities: this.capabilities,
      clientInfo: CLIENT_INFO,
    });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return r;
  }

  async close(): Promise<number | null> {
    this.child.stdin.end();
    const t = setTimeout(() => this.child.kill('SIGKILL'), 3000);
    const code = await this.exited;
    clearTimeout(t);
    return code;
  }
}

/** A 2026-07-28 subscriptions/listen stream asking for `notifications` (its filter), its frames as they
 *  arrive. */
export async function modernListen(
  url: string,
  notifications: Json = { promptsListChanged: true, resourcesListChanged: true },
): Promise<{ frames: () => Json[]; close: () => void }> {
  const ac = new AbortController();
  const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };
  const res = await fetch(url, {
    method: 'POST',
    signal: ac.signal,
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': MODERN,
      'Mcp-Method': 'subscriptions/listen',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'L',
      method: 'subscriptions/listen',
      params: { _meta: meta, notifications },
    }),
  });
  let seen = '';
  void (async () => {
    try {
      for await (const chunk of res.body!.pipeThrough(new TextDecoderStream())) seen += chunk;
    } catch {
      // closed
    }
  })();
  return { frames: () => parseSse(seen) as Json[], close: () => ac.abort() };
}
