// The exec child (dist/exec-child.js): runs one script for mcpx_exec, in a Node process the gateway
// starts under Node's permission model (docs/exec.md "The sandbox"), and talks to the gateway only over
// its stdin and stdout (channel.ts). The script is evaluated in a vm context whose globals are the
// language's own plus `mcpx` and `console`, both made inside that context; the one function from
// outside it is `bridge`, and this process cannot generate code from strings, so its constructor
// leads nowhere. The vm context is not a boundary on its own; the process around it is the boundary
// (docs/exec.md "What the sandbox stops, and what it does not").
import { createContext, Script } from 'node:vm';
import { type ExecOp, type FromChild, SCRIPT_FILE, type ToChild } from './channel';

const send = (m: FromChild): void => {
  process.stdout.write(`${JSON.stringify(m)}\n`);
};

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

// The script's world, built inside its context: `bridge(op, argsJson, resolve, reject)` is the only way
// out. Errors of a call carry the stack of the script's own call site.
const SETUP = `(function (bridge) {
  'use strict';
  const request = (op, args) => {
    const where = new Error();
    return new Promise((resolve, reject) => {
      bridge(op, JSON.stringify(args), (v) => resolve(JSON.parse(v)), (message) => {
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
    try { const s = JSON.stringify(v); return s === undefined ? String(v) : s; } catch { return String(v); }
  };
  const logAt = (level) => (...args) => bridge('log', JSON.stringify([level, args.map(show).join(' ')]));
  const console = Object.freeze({
    log: logAt('info'), info: logAt('info'), debug: logAt('debug'), warn: logAt('warning'), error: logAt('error'),
  });
  Object.defineProperty(globalThis, 'mcpx', { value: mcpx, enumerable: true });
  Object.defineProperty(globalThis, 'console', { value: console, enumerable: true });
  return (value) => JSON.stringify(value === undefined ? null : value);
})`;

type Pending = { resolve: (v: string) => void; reject: (message: string) => void };

function main(): void {
  const problem = sandboxProblem();
  if (problem) {
    send({ t: 'fatal', message: `the exec sandbox is not in force: ${problem}` });
    process.exit(1);
  }
  const pending = new Map<number, Pending>();
  let next = 1;
  const bridge = (op: string, argsJson: string, resolve?: Pending['resolve'], reject?: Pending['reject']): void => {
    const args = JSON.parse(argsJson) as unknown[];
    if (op === 'log') {
      send({ t: 'log', level: String(args[0]), text: String(args[1]) });
      return;
    }
    const id = next++;
    pending.set(id, { resolve: resolve!, reject: reject! });
    send({ t: 'req', id, op: op as ExecOp, args });
  };
  const context = createContext({}, { codeGeneration: { strings: false, wasm: false } });
  const toJson = new Script(SETUP, { filename: 'mcpx-setup.js' }).runInContext(context)(bridge) as (
    v: unknown,
  ) => string;
  process.on('unhandledRejection', (e) => {
    send({ t: 'log', level: 'warning', text: `unhandled rejection: ${describe(e).message}` });
  });

  const run = async (script: string): Promise<void> => {
    try {
      // The body of an async function: its line 1 is the script's line 1.
      const fn = new Script(`(async function () {\n${script}\n})`, {
        filename: SCRIPT_FILE,
        lineOffset: -1,
      }).runInContext(context) as () => Promise<unknown>;
      const value = await fn();
      let text: string;
      try {
        text = toJson(value);
      } catch (e) {
        throw new Error(`the script's return value is not JSON: ${describe(e).message}`);
      }
      send({ t: 'done', ok: true, value: JSON.parse(text) as unknown });
    } catch (e) {
      send({ t: 'done', ok: false, ...describe(e) });
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
      if (m.t === 'start') void run(m.script);
      else {
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

/** A thrown value's message, and its stack with only the script's frames (docs/exec.md "Errors"). */
function describe(e: unknown): { message: string; stack: string } {
  const isErr = typeof e === 'object' && e !== null && 'message' in e;
  const message = isErr ? String((e as { message: unknown }).message) : String(e);
  const raw = isErr && 'stack' in e ? String((e as { stack: unknown }).stack) : '';
  const lines = raw.split('\n');
  const frames = lines.filter((l) => /^\s+at /.test(l) && l.includes(SCRIPT_FILE));
  const head = lines.find((l) => !/^\s+at /.test(l)) ?? `Error: ${message}`;
  return { message, stack: [isErr ? head : `Uncaught ${message}`, ...frames].join('\n') };
}

main();
