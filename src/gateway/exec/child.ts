// The exec child (dist/exec-child.js): runs one script for mcpx_exec, in a Node process the gateway
// starts under Node's permission model (docs/exec.md "The sandbox"), and talks to the gateway only over
// its stdin and stdout (channel.ts). The script is evaluated in a vm context whose globals are the
// language's own plus `mcpx` and `console`, both made inside that context; the one function from
// outside it is `bridge`, and this process cannot generate code from strings, so its constructor
// leads nowhere. The vm context is not a boundary on its own; the process around it is the boundary
// (docs/exec.md "What the sandbox stops, and what it does not").
import { createContext, Script } from 'node:vm';
import {
  Budget,
  type ExecOp,
  type FromChild,
  SCRIPT_FILE,
  type ToChild,
  logLine,
  requestTooLarge,
  tooManyInFlight,
} from './channel';

const write = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const send = (m: FromChild): void => write(JSON.stringify(m));

/** Refuses to run unless the process is the sandbox it should be: no file writes, no child processes, no
 *  worker threads, no code from strings. A runtime that ignored a flag fails here, closed. */
function sandboxProblem(): string | undefined {
  const p = (process as { permission?: { has(scope: string): boolean } }).permission;
  if (!p) return 'the permission model is not in force';
  for (const scope of ['fs.write', 'child', 'worker']) if (p.has(scope)) return `the sandbox allows ${scope}`;
  try {
    Function('')();
    return 'code generation from strings is allowed';
  } catch {
    return undefined;
  }
}

// The script's world, built inside its context: `bridge` is the only way out — `bridge(op, argsJson,
// resolve, reject)` for a request, `bridge('log', text, level)` for a log. JSON's functions are taken
// before the script runs, so what crosses is JSON whatever the script does to its globals. Errors of a
// call carry the stack of the script's own call site.
const SETUP = `(function (bridge) {
  'use strict';
  const { stringify, parse } = JSON;
  const request = (op, args) => {
    const where = new Error();
    return new Promise((resolve, reject) => {
      bridge(op, stringify(args), (v) => resolve(parse(v)), (message) => {
        const e = new Error(message);
        e.stack = 'Error: ' + message + '\\n' + String(where.stack).split('\\n').slice(2).join('\\n');
        reject(e);
      });
    });
  };
  const typedServer = (server) => new Proxy(Object.create(null), {
    get: (_t, tool) => (typeof tool !== 'string' || tool === 'then') ? undefined
      : (args) => request('typed', [server, tool, args === undefined ? {} : args]),
  });
  const mcpx = Object.freeze({
    call: (server, tool, args, options) => request('call', [server, tool, args === undefined ? {} : args, options === undefined ? {} : options]),
    read: (uri) => request('read', [uri]),
    prompt: (name, args) => request('prompt', [name, args === undefined ? {} : args]),
    servers: new Proxy(Object.create(null), {
      get: (_t, server) => (typeof server !== 'string' || server === 'then') ? undefined : typedServer(server),
    }),
  });
  const show = (v) => {
    if (typeof v === 'string') return v;
    if (v instanceof Error) return String(v.stack || v);
    try { const s = stringify(v); return s === undefined ? String(v) : s; } catch { return String(v); }
  };
  const logAt = (level) => (...args) => bridge('log', args.map(show).join(' '), level);
  const console = Object.freeze({
    log: logAt('info'), info: logAt('info'), debug: logAt('debug'), warn: logAt('warning'), error: logAt('error'),
  });
  Object.defineProperty(globalThis, 'mcpx', { value: mcpx, enumerable: true });
  Object.defineProperty(globalThis, 'console', { value: console, enumerable: true });
  // The returned value as JSON (undefined is null); a value with no JSON form is the script's error.
  return (value) => {
    const v = value === undefined ? null : value;
    const s = stringify(v);
    if (typeof s === 'string') return s;
    throw new TypeError(typeof v === 'object' ? 'its toJSON() gives nothing' : 'it is a ' + typeof v);
  };
})`;

type Pending = { resolve: (v: string) => void; reject: (message: string) => void };

function main(): void {
  const problem = sandboxProblem();
  if (problem) {
    send({ t: 'fatal', message: `the exec sandbox is not in force: ${problem}` });
    process.exit(1);
  }
  // Every line is in the pipe before the write returns: a script that logs in a loop waits for the
  // gateway to read instead of queueing output in this process, and process.exit() loses nothing.
  (process.stdout as unknown as { _handle?: { setBlocking?(on: boolean): number } })._handle?.setBlocking?.(true);

  const pending = new Map<number, Pending>();
  let next = 1;
  let limits: { budget: Budget; maxConcurrent: number } | undefined;
  // Past exec.maxOutputBytes the script is stopped where it is, even inside a loop that catches
  // whatever console.log could throw: what fit was sent; the gateway says the rest.
  const over = (): never => {
    send({ t: 'over' });
    process.exit(0);
  };
  const log = (line: string): void => {
    const { part, whole } = limits!.budget.take(line);
    if (whole || part) send({ t: 'log', line: part });
    if (!whole) over();
  };
  const bridge = (op: unknown, payload: unknown, a?: unknown, b?: unknown): void => {
    if (typeof op !== 'string' || typeof payload !== 'string') return;
    if (op === 'log') return log(logLine(String(a), payload));
    if (typeof a !== 'function' || typeof b !== 'function') return;
    const p = { resolve: a, reject: b } as Pending;
    const { budget, maxConcurrent } = limits!;
    // Refused here, before a byte is written: a script that fires requests without awaiting them
    // queues nothing (the gateway refuses past the bound too).
    if (pending.size >= maxConcurrent) return p.reject(tooManyInFlight(maxConcurrent));
    // A line of the channel is bounded by the output cap (docs/exec.md "The channel").
    if (payload.length > budget.max || Buffer.byteLength(payload) > budget.max)
      return p.reject(requestTooLarge(budget.max));
    const id = next++;
    pending.set(id, p);
    // The arguments are JSON already (the context's own stringify, taken before the script ran).
    write(`{"t":"req","id":${id},"op":${JSON.stringify(op as ExecOp)},"args":${payload}}`);
  };
  const context = createContext({}, { codeGeneration: { strings: false, wasm: false } });
  const toJson = new Script(SETUP, { filename: 'mcpx-setup.js' }).runInContext(context)(bridge) as (
    v: unknown,
  ) => string;
  process.on('unhandledRejection', (e) => {
    if (limits) log(logLine('warning', `unhandled rejection: ${messageOf(e)}`));
  });
  // The script threw: its text counts as output, like a log.
  const threw = (e: unknown): never => {
    if (!limits) process.exit(1); // not the script's: there is none yet
    const text = describe(e);
    if (!limits.budget.take(text).whole) over();
    send({ t: 'done', ok: false, text });
    process.exit(0);
  };
  // Thrown outside any promise of the script: a FinalizationRegistry callback, the one job the language
  // runs on its own. The run ends as if the script had thrown it (Node would print it and exit 1).
  process.on('uncaughtException', threw);

  const run = async (script: string): Promise<void> => {
    const { budget } = limits!;
    try {
      // The body of an async function: its line 1 is the script's line 1.
      const fn = new Script(`(async function () {\n${script}\n})`, {
        filename: SCRIPT_FILE,
        lineOffset: -1,
      }).runInContext(context) as () => Promise<unknown>;
      const value = await fn();
      let json: string;
      try {
        json = toJson(value);
      } catch (e) {
        throw new Error(`the script's return value is not JSON: ${messageOf(e)}`);
      }
      if (!budget.takeJson(json)) over();
      write(`{"t":"done","ok":true,"value":${json}}`);
    } catch (e) {
      threw(e);
    }
    process.exit(0);
  };

  let buf = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    buf += chunk;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const m = JSON.parse(line) as ToChild;
      if (m.t === 'start') {
        if (limits) continue;
        limits = { budget: new Budget(m.maxOutputBytes), maxConcurrent: m.maxConcurrent };
        void run(m.script);
      } else {
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (!p) continue;
        if (m.ok) p.resolve(JSON.stringify(m.value));
        else p.reject(m.error);
      }
    }
  });
  // The gateway went away: so does the script.
  process.stdin.on('end', () => process.exit(0));
  send({ t: 'ready', pid: process.pid });
}

/** `f()` as a string, or undefined when it throws: a value the script made may throw from any getter,
 *  Proxy trap or toString, and describing it must not. */
function tryString(f: () => unknown): string | undefined {
  try {
    const v = f();
    return typeof v === 'string' ? v : v === undefined ? undefined : String(v);
  } catch {
    return undefined;
  }
}

const UNSHOWABLE = 'a value that cannot be shown';

const isObjectLike = (e: unknown): e is object => (typeof e === 'object' && e !== null) || typeof e === 'function';

/** A thrown value's message, whatever it is. */
function messageOf(e: unknown): string {
  const m = isError(e) ? tryString(() => (e as { message?: unknown }).message) : tryString(() => String(e));
  return m ?? UNSHOWABLE;
}

/** Error-like: it has a message (an Error of either realm, or anything thrown with one). */
const isError = (e: unknown): e is object =>
  isObjectLike(e) && tryString(() => ('message' in e ? 'yes' : '')) === 'yes';

/** A thrown value as the client is shown it (docs/exec.md "Errors"): an Error's stack with only the
 *  script's frames; anything else thrown as "Uncaught <value>". */
function describe(e: unknown): string {
  if (!isError(e)) return `Uncaught ${tryString(() => String(e)) ?? UNSHOWABLE}`;
  const message = tryString(() => (e as { message?: unknown }).message);
  const raw = tryString(() => (e as { stack?: unknown }).stack) ?? '';
  const lines = raw.split('\n');
  const frame = (l: string) => /^\s+at /.test(l);
  const firstFrame = lines.findIndex(frame);
  const head = (firstFrame < 0 ? lines : lines.slice(0, firstFrame)).join('\n');
  const frames = lines.filter((l) => frame(l) && l.includes(SCRIPT_FILE));
  return [head || message || `Uncaught ${UNSHOWABLE}`, ...frames].join('\n');
}

main();
