// One kind of package (a server.json `registryType`) as install sees it: what it refuses before fetching,
// how it is fetched at install time into the server's own directory, and the command that then runs it
// from disk. Commands run through `Run`, never a shell, so tests can see the ones a kind would run.
import { system } from '../../platform';
import type { Rendered } from '../inputs';
import type { Package } from '../types';

export type Run = (
  command: string,
  args: readonly string[],
  o?: { cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv },
) => Promise<{ stdout: string; stderr: string }>;

export interface FetchContext {
  /** The server's own directory under mcpx's state (made, empty). */
  dir: string;
  run: Run;
  /** registry.packageHosts. */
  extraHosts: readonly string[];
  /** The longest a download or an install command may take. */
  timeoutMs: number;
  log(line: string): void;
}

/** What was fetched, and how it runs. */
export interface Installed {
  /** The exact thing installed: `@scope/pkg@1.2.3`, `pkg==1.2.3`, `image@sha256:…`, an mcpb URL. */
  spec: string;
  /** The registry name the package itself claims (npm's package.json `mcpName`), when it says. */
  mcpName?: string;
  /** Whether it runs as a process mcpx can put in its sandbox (a container is its own). */
  sandboxable: boolean;
  argv(r: Rendered): { command: string; args: string[]; env?: Record<string, string> };
}

export interface PackageKind {
  /** Why this package cannot be installed, decided before anything is fetched. */
  refuse?(p: Package): string | undefined;
  fetch(p: Package, c: FetchContext): Promise<Installed>;
}

/** Output past this is cut (an install's log is for a person's eyes when it fails). */
const MAX_OUTPUT = 4 * 1024 * 1024;

/** Runs a command (no shell; found as the system finds programs — `npm` is `npm.cmd` on Windows — and
 *  guarded as an upstream is: nothing it starts outlives mcpx), its failure naming it with the tail of what
 *  it wrote. */
export const runCommand: Run = (command, args, o = {}) =>
  new Promise((resolve, reject) => {
    const timeoutMs = o.timeoutMs ?? 300_000;
    const out = { stdout: '', stderr: '' };
    let timedOut = false;
    const child = system.spawnGuarded({ command, args, cwd: o.cwd, env: o.env ?? process.env });
    child.stdin?.end();
    const timer = setTimeout(() => {
      timedOut = true;
      void system.killTree(child, 0);
    }, timeoutMs);
    const keep = (into: 'stdout' | 'stderr') => (b: Buffer) => {
      if (out[into].length < MAX_OUTPUT) out[into] += b.toString();
    };
    child.stdout?.on('data', keep('stdout'));
    child.stderr?.on('data', keep('stderr'));
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(why));
    };
    child.on('error', (e: NodeJS.ErrnoException) =>
      fail(e.code === 'ENOENT' ? `${command} is not installed (not found on PATH)` : `${command}: ${e.message}`),
    );
    child.on('close', (code) => {
      if (timedOut) return fail(`${command} did not finish within ${Math.round(timeoutMs / 1000)} s`);
      // 127: the guard (sh's or the watchdog's) found no such command.
      if (code === 127) return fail(`${command} is not installed (not found on PATH)`);
      if (code !== 0)
        return fail(
          `${command} ${args[0] ?? ''} failed: ${out.stderr.trim().split('\n').slice(-5).join(' / ').slice(0, 600)}`,
        );
      clearTimeout(timer);
      resolve(out);
    });
  });

/** Refused when the package's runtime arguments would be lost: mcpx runs the installed package itself,
 *  not through the runtime (npx, uvx) they are written for. */
export function noRuntimeArguments(p: Package): string | undefined {
  return p.runtimeArguments?.length
    ? `its runtimeArguments are for ${p.runtimeHint ?? 'the package runner'}, which mcpx does not use: it runs the package installed at install time`
    : undefined;
}
