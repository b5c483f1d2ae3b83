// Load drivers shared by the benchmarks: the same client code drives mcpx and each floor.
import { type ChildProcess, spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';

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
export async function httpLoad(url: string, body: () => string, headers: Record<string, string>, concurrency: number, ms: number): Promise<Figures> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const u = new URL(url);
  const latencies: number[] = [];
  const end = performance.now() + ms;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const t0 = performance.now();
      const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', agent, headers }, (res) => {
        res.resume();
        res.on('end', () => {
          if ((res.statusCode ?? 0) >= 300) return reject(new Error(`HTTP ${res.statusCode}`));
          latencies.push(performance.now() - t0);
          resolve();
        });
      });
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
export async function stdioLoad(child: ChildProcess, msg: (id: number) => string, concurrency: number, ms: number): Promise<Figures> {
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
      child.stdin!.write(msg(id) + '\n');
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
export function startProcess(cmd: string, args: string[], ready: RegExp): Promise<{ child: ChildProcess; match: string }> {
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

export const fmt = (f: Figures) => `${f.rps.toFixed(0)} req/s, p50 ${f.p50.toFixed(2)} ms, p99 ${f.p99.toFixed(2)} ms`;
