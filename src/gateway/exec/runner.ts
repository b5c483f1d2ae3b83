// One script run in its own child process (docs/exec.md): started under the sandbox (sandbox.ts), given
// the script, its requests served by `serve`, its logs kept, and ended — by its own `done`, by its
// timeout, by the caller's abort or by its output growing past the cap. The child and its process group
// are gone when `runScript` resolves, whatever ended it.
import type { ChildProcess } from 'node:child_process';
import type { JsonObject } from '../../protocol/jsonrpc';
import type { CallToolResult } from '../../protocol/methods';
import { type Aborts, listen } from '../../wire/abort';
import { readLines } from '../../wire/lines';
import { system } from '../../platform';
import { Budget, type ExecOp, type FromChild, type ToChild, outputPassed } from './channel';
import { BESIDE_HEAP_MB, childBundle, childSpec, watchMemory } from './sandbox';

export interface RunLimits {
  /** exec.timeout, or the call's own timeoutSec. */
  timeoutMs: number;
  /** exec.maxOutputBytes: the returned value and the logs together. */
  maxOutputBytes: number;
  /** exec.maxHeapMB: the child's V8 heap. */
  heapMb: number;
  /** exec.maxConcurrent: the script's requests in flight (the child refuses past it; exec.ts too). */
  maxConcurrent: number;
}

/** How a run ended. */
export type Outcome =
  | { kind: 'returned'; value: unknown; logs: string[] }
  | { kind: 'threw'; text: string; logs: string[] }
  | { kind: 'stopped'; why: string; logs: string[] };

export interface RunHooks {
  /** A request of the script: the gateway's answer, or a rejection whose message the script sees. */
  serve(op: ExecOp, args: unknown[]): Promise<unknown>;
  /** The child's pid once its sandbox is up (tests check it is gone afterwards). */
  started?(pid: number): void;
}

export async function runScript(script: string, limits: RunLimits, hooks: RunHooks, signal: Aborts): Promise<Outcome> {
  const child = system.spawnGuarded(childSpec(childBundle(), limits.heapMb));
  const logs: string[] = [];
  // The child counts the output before it writes it; this counts it again, as read (a second guard).
  const budget = new Budget(limits.maxOutputBytes);
  let stderr = '';
  /** The script's own process (under the wrapper), once it said so. */
  let pid: number | undefined;
  let unwatch = (): void => undefined;
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
  const over = (): void => stop(outputPassed(limits.maxOutputBytes));

  const onMessage = (m: FromChild): void => {
    switch (m.t) {
      case 'ready':
        if (pid !== undefined) return;
        pid = m.pid;
        hooks.started?.(m.pid);
        unwatch = watchMemory(m.pid, limits.heapMb + BESIDE_HEAP_MB, () =>
          stop(
            `the script's memory passed ${limits.heapMb + BESIDE_HEAP_MB} MB (exec.maxHeapMB + ${BESIDE_HEAP_MB} MB); it was stopped`,
          ),
        );
        write({ t: 'start', script, maxOutputBytes: limits.maxOutputBytes, maxConcurrent: limits.maxConcurrent });
        return;
      case 'req':
        hooks.serve(m.op, m.args).then(
          (value) => write({ t: 'reply', id: m.id, ok: true, value }),
          (e: unknown) => write({ t: 'reply', id: m.id, ok: false, error: e instanceof Error ? e.message : String(e) }),
        );
        return;
      case 'log': {
        const { part, whole } = budget.take(String(m.line));
        if (whole || part) logs.push(part);
        if (!whole) over();
        return;
      }
      case 'done':
        if (!m.ok)
          return budget.take(String(m.text)).whole ? end({ kind: 'threw', text: String(m.text), logs }) : over();
        if (budget.takeJson(JSON.stringify(m.value) ?? 'null')) end({ kind: 'returned', value: m.value, logs });
        else over();
        return;
      case 'over':
        return over();
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
    // The child writes no line longer than the cap and an envelope: one that does is output past it.
    overlong: over,
  });
  // Kept to tell how the process ended, never shown as it is (docs/exec.md "The child's stderr").
  child.stderr!.on('data', (d: Buffer) => {
    if (stderr.length < STDERR_KEPT) stderr += d.toString('utf8');
  });
  // A child gone mid-write is reported by 'close' below, not by an error on its pipes.
  child.stdin?.on('error', () => undefined);
  child.stdout?.on('error', () => undefined);
  // 'close', not 'exit': every line the child wrote has been read by then (its `done` among them).
  child.on('close', (code, sig) => stop(endedHow(sig ?? `exit ${code}`, stderr, pid !== undefined, limits.heapMb)));
  child.on('error', (e) => stop(`the script's process could not start: ${e.message}`));

  const timer = setTimeout(
    () =>
      stop(
        `the script ran past its timeout (${limits.timeoutMs / 1000} s: exec.timeout, timeoutSec or the request's dev.mcpx/timeoutMs); it was stopped`,
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
    unwatch();
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
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // it ended between the check and the signal: nothing left to end
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 1000))]);
  }
  await system.killTree(child, 200);
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

/** As much of the child's stderr as is read to tell how it ended: V8's report of a heap overflow names
 *  it within its first lines (after a few lines of GC trace). */
const STDERR_KEPT = 16 * 1024;

/** Why the script's process ended before it returned, from its exit and its stderr (docs/exec.md "The
 *  child's stderr"): a heap overflow is named with its setting; before the sandbox was up, the runtime's
 *  own first error line (a flag it does not know, a file it cannot read) is the one thing of stderr
 *  shown; after, none of it — it is V8's and Node's, native frames and addresses, never the client's. */
function endedHow(how: string, stderr: string, started: boolean, heapMb: number): string {
  if (/JavaScript heap out of memory/.test(stderr))
    return `the script's heap passed ${heapMb} MB (exec.maxHeapMB); it was stopped`;
  if (started) return `the script's process ended (${how}) before it returned`;
  const first = stderr.split('\n').find((l) => /^(node: |[A-Za-z]*Error: )/.test(l));
  return `the script's process could not start (${how})${first ? `: ${first.slice(0, 200)}` : ''}`;
}

/** The tool result of a run (docs/exec.md "Results"): the value and the logs as structured content (and
 *  their JSON as text, for a revision without it), or an isError result with the script's message and
 *  its stack. */
export function resultOf(o: Outcome): CallToolResult {
  if (o.kind === 'returned') {
    const value: JsonObject = { result: o.value as JsonObject[string], logs: o.logs };
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  }
  const text = o.kind === 'threw' ? o.text : `mcpx_exec: ${o.why}`;
  const logs = o.logs.length ? `\n\nlogs:\n${o.logs.join('\n')}` : '';
  return { content: [{ type: 'text', text: `${text}${logs}` }], isError: true };
}
