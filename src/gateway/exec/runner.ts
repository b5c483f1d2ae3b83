// One script run in its own child process (docs/exec.md): started under the sandbox (sandbox.ts), given
// the script, its requests served by `serve`, its logs kept, and ended — by its own `done`, by its
// timeout, by the caller's abort or by its output growing past the cap. The child and its process group
// are gone when `runScript` resolves, whatever ended it.
import type { ChildProcess } from 'node:child_process';
import type { JsonObject } from '../../protocol/jsonrpc';
import { type Aborts, listen } from '../../wire/abort';
import { readLines } from '../../wire/lines';
import { killGroup, spawnGuarded } from '../../upstream/spawn';
import type { ExecOp, FromChild, ToChild } from './channel';
import { childBundle, childSpec } from './sandbox';

export interface RunLimits {
  /** exec.timeout, or the call's own timeoutSec. */
  timeoutMs: number;
  /** exec.maxOutputBytes: the returned value and the logs together. */
  maxOutputBytes: number;
  /** exec.maxHeapMB: the child's V8 heap. */
  heapMb: number;
}

/** How a run ended. */
export type Outcome =
  | { kind: 'returned'; value: unknown; logs: string[] }
  | { kind: 'threw'; message: string; stack: string; logs: string[] }
  | { kind: 'stopped'; why: string; logs: string[] };

export interface RunHooks {
  /** A request of the script: the gateway's answer, or a rejection whose message the script sees. */
  serve(op: ExecOp, args: unknown[]): Promise<unknown>;
  /** The child's pid once its sandbox is up (tests check it is gone afterwards). */
  started?(pid: number): void;
}

export async function runScript(script: string, limits: RunLimits, hooks: RunHooks, signal: Aborts): Promise<Outcome> {
  const child = spawnGuarded(childSpec(childBundle(), limits.heapMb));
  const logs: string[] = [];
  let bytes = 0;
  let stderr = '';
  /** The script's own process (under the wrapper), once it said so. */
  let pid: number | undefined;
  let settle!: (o: Outcome) => void;
  const outcome = new Promise<Outcome>((r) => (settle = r));
  let ended = false;
  const end = (o: Outcome): void => {
    if (ended) return;
    ended = true;
    settle(o);
  };
  const stop = (why: string): void => end({ kind: 'stopped', why, logs });
  const write = (m: ToChild): void => {
    if (!ended && child.stdin?.writable) child.stdin.write(`${JSON.stringify(m)}\n`);
  };
  // Output past the cap ends the run: the logs and the value count, each as the JSON the caller gets.
  const counted = (n: number): boolean => {
    bytes += n;
    if (bytes <= limits.maxOutputBytes) return true;
    stop(`the script's output passed ${limits.maxOutputBytes} bytes (exec.maxOutputBytes); it was stopped`);
    return false;
  };

  const onMessage = (m: FromChild): void => {
    switch (m.t) {
      case 'ready':
        pid = m.pid;
        hooks.started?.(m.pid);
        write({ t: 'start', script });
        return;
      case 'req':
        hooks.serve(m.op, m.args).then(
          (value) => write({ t: 'reply', id: m.id, ok: true, value }),
          (e: unknown) => write({ t: 'reply', id: m.id, ok: false, error: e instanceof Error ? e.message : String(e) }),
        );
        return;
      case 'log':
        if (counted(Buffer.byteLength(m.text) + 4)) logs.push(m.level === 'info' ? m.text : `[${m.level}] ${m.text}`);
        return;
      case 'done':
        if (!m.ok) return end({ kind: 'threw', message: m.message, stack: m.stack, logs });
        if (counted(Buffer.byteLength(JSON.stringify(m.value) ?? ''))) end({ kind: 'returned', value: m.value, logs });
        return;
      case 'fatal':
        return stop(m.message);
    }
  };

  readLines(child.stdout!, limits.maxOutputBytes + 1024, {
    line: (line) => {
      let m: FromChild;
      try {
        m = JSON.parse(line) as FromChild;
      } catch {
        return stop('the exec child sent a line that is not JSON');
      }
      onMessage(m);
    },
    overlong: () =>
      stop(`the script's output passed ${limits.maxOutputBytes} bytes (exec.maxOutputBytes); it was stopped`),
  });
  child.stderr!.on('data', (d: Buffer) => {
    if (stderr.length < 4096) stderr += d.toString('utf8');
  });
  // A child gone mid-write is reported by 'close' below, not by an error on its pipes.
  child.stdin?.on('error', () => undefined);
  child.stdout?.on('error', () => undefined);
  // 'close', not 'exit': every line the child wrote has been read by then (its `done` among them).
  child.on('close', (code, sig) => {
    const detail = stderr.trim() ? `: ${lastLines(stderr)}` : '';
    stop(`the script's process ended (${sig ?? `exit ${code}`}) before it returned${detail}`);
  });
  child.on('error', (e) => stop(`the script's process could not start: ${e.message}`));

  const timer = setTimeout(
    () =>
      stop(
        `the script ran past its timeout (${limits.timeoutMs / 1000} s, exec.timeout or timeoutSec); it was stopped`,
      ),
    limits.timeoutMs,
  );
  // The run ended from outside (the caller cancelled, proto.askRounds, the gateway closing): the
  // reason is what the caller is told.
  const stopped = () => stop(signal.reason instanceof Error ? signal.reason.message : 'the script was stopped');
  if (signal.aborted) stopped();
  const unlisten = signal.aborted ? () => undefined : listen(signal, stopped);
  try {
    return await outcome;
  } finally {
    clearTimeout(timer);
    unlisten();
    await gone(child, pid);
  }
}

/** The child and everything in its process group, ended; resolves once the script's process is gone
 *  too (the wrapper may exit an instant before it; signal 0 stops reaching it once it is reaped). */
async function gone(child: ChildProcess, pid: number | undefined): Promise<void> {
  child.stdin?.end();
  // The script's process first, so that the wrapper reaps it before it exits itself (signalled first,
  // the wrapper would leave it to be reaped by whoever adopts it); then the rest of the group.
  if (pid !== undefined && reachable(pid)) {
    const exited = new Promise<void>((r) => (child.exitCode !== null ? r() : child.once('exit', () => r())));
    process.kill(pid, 'SIGKILL');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 1000))]);
  }
  await killGroup(child, 200);
  for (let waited = 0; pid !== undefined && waited < 2000 && reachable(pid); waited += 10)
    await new Promise((r) => setTimeout(r, 10));
}

function reachable(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const lastLines = (s: string): string => s.trim().split('\n').slice(-3).join(' | ');

/** The tool result of a run (docs/exec.md "Results"): the value and the logs as structured content (and
 *  their JSON as text, for a revision without it), or an isError result with the script's message and
 *  its stack. */
export function resultOf(o: Outcome): JsonObject {
  if (o.kind === 'returned') {
    const value: JsonObject = { result: o.value as JsonObject[string], logs: o.logs };
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  }
  const text = o.kind === 'threw' ? `${o.stack || o.message}` : `mcpx_exec: ${o.why}`;
  const logs = o.logs.length ? `\n\nlogs:\n${o.logs.join('\n')}` : '';
  return { content: [{ type: 'text', text: `${text}${logs}` }], isError: true };
}
