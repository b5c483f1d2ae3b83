// Load drivers shared by the benchmarks: the same client code drives mcpx and each floor.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { createInterface } from 'node:readline';

/** BENCH_SMOKE=1 (`npm run bench:smoke`, a step of .ci/run): every benchmark runs whole, each cell a few
 *  hundred milliseconds or a round or two, so that a broken benchmark fails CI; no figure is judged, and
 *  run.ts writes no docs/performance.md. */
export const SMOKE = process.env.BENCH_SMOKE === '1';

/** A benchmark's size: `full`, or `smoke` under BENCH_SMOKE; a variable named in `env` wins over both. */
export function size(full: number, smoke: number, env?: string): number {
  const set = env === undefined ? undefined : process.env[env];
  return set !== undefined && set !== '' ? Number(set) : SMOKE ? smoke : full;
}

export interface Figures {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function figures(latencies: number[], elapsedMs: number): Figures {
  const s = [...latencies].sort((a, b) => a - b);
  return { requests: s.length, rps: (s.length / elapsedMs) * 1000, p50: percentile(s, 50), p99: percentile(s, 99) };
}

/** POST `body()` to `url` from `concurrency` keep-alive clients for `ms`; every answer must be 2xx. */
export async function httpLoad(
  url: string,
  body: () => string,
  headers: Record<string, string>,
  concurrency: number,
  ms: number,
): Promise<Figures> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const u = new URL(url);
  const latencies: number[] = [];
  const end = performance.now() + ms;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const t0 = performance.now();
      const req = request(
        { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', agent, headers },
        (res) => {
          res.resume();
          res.on('end', () => {
            if ((res.statusCode ?? 0) >= 300) return reject(new Error(`HTTP ${res.statusCode}`));
            latencies.push(performance.now() - t0);
            resolve();
          });
        },
      );
      req.on('error', reject);
      req.end(body());
    });
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) await one();
    }),
  );
  const elapsed = performance.now() - start;
  agent.destroy();
  return figures(latencies, elapsed);
}

/** A child speaking newline-delimited JSON-RPC; `concurrency` requests kept in flight for `ms`. */
export async function stdioLoad(
  child: ChildProcess,
  msg: (id: number) => string,
  concurrency: number,
  ms: number,
): Promise<Figures> {
  const pending = new Map<number, (v: void) => void>();
  const rl = createInterface({ input: child.stdout! });
  rl.on('line', (line) => {
    const m = /"id":(\d+)/.exec(line);
    if (m) pending.get(Number(m[1]))?.();
  });
  let next = 1_000_000;
  const latencies: number[] = [];
  const end = performance.now() + ms;
  const one = () =>
    new Promise<void>((resolve) => {
      const id = next++;
      const t0 = performance.now();
      pending.set(id, () => {
        pending.delete(id);
        latencies.push(performance.now() - t0);
        resolve();
      });
      child.stdin!.write(`${msg(id)}\n`);
    });
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) await one();
    }),
  );
  rl.close();
  return figures(latencies, performance.now() - start);
}

/** Start a process that prints a line matching `ready`; resolves with the first capture group. */
export function startProcess(
  cmd: string,
  args: string[],
  ready: RegExp,
): Promise<{ child: ChildProcess; match: string }> {
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      const m = ready.exec(line);
      if (m) {
        rl.close();
        resolve({ child, match: m[1] ?? line });
      }
    });
    child.once('exit', (code) => reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}`)));
  });
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(t);
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export const fmt = (f: Figures) => `${f.rps.toFixed(0)} req/s, p50 ${f.p50.toFixed(2)} ms, p99 ${f.p99.toFixed(2)} ms`;

/** Every live descendant of `pid` (children first), from /proc. */
export function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parent.set(Number(name), ppid);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [c, pp] of parent) {
      if (pp === p) {
        out.push(c);
        walk(c);
      }
    }
  };
  walk(pid);
  return out;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Stop `child` by its pid (TERM, KILL after 3 s), then make sure whatever it had started (its
 *  upstreams) is gone too: each is given 2.5 s to exit on its own, then signalled by its pid. */
export async function stopTree(child: ChildProcess): Promise<void> {
  const kids =
    child.pid !== undefined && child.exitCode === null && child.signalCode === null ? descendants(child.pid) : [];
  if (child.exitCode === null && child.signalCode === null) await stop(child);
  const deadline = performance.now() + 2500;
  while (kids.some(alive) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  for (const sig of ['SIGTERM', 'SIGKILL'] as const) {
    const left = kids.filter(alive);
    if (left.length === 0) return;
    for (const p of left) {
      try {
        process.kill(p, sig);
      } catch {
        // exited meanwhile
      }
    }
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** A field of /proc/<pid>/status in kB (VmRSS: resident now; VmHWM: peak resident). */
export function procStatusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(m[1]);
}

/** A port free on 127.0.0.1 right now (for a program that cannot be told to pick one itself). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** GET `url` on a fresh connection; the status, or 0 when nothing answers. */
export function probeGet(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

/** A URL for an error message: mcpx's /mcp/<secret> path without the secret (docs/security.md "The
 *  endpoint secret"). */
export function shown(url: URL): string {
  return url.href.replace(/\/mcp\/[A-Za-z0-9_-]{43}/, '/mcp/<secret>');
}

/** A bench run alone (`node build/bench/NAME.js`): its report on stdout, exit 0; a failure's stack on
 *  stderr, exit 1. Bundled into run.js a bench only exports, so this runs only when `file` is the script. */
export function runAlone<F>(file: string, bench: () => Promise<F>, report: (f: F) => string[]): void {
  if (!process.argv[1]?.endsWith(file)) return;
  bench()
    .then((f) => process.stdout.write(`${report(f).join('\n')}\n`))
    .then(
      () => process.exit(0),
      (e: Error) => {
        process.stderr.write(`${e.stack}\n`);
        process.exit(1);
      },
    );
}
