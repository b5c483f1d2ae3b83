// What differs between the systems mcpx runs on — Linux, macOS, Windows — as one small interface with
// one implementation per system (linux.ts, darwin.ts, win32.ts), chosen once in index.ts: the rest of
// mcpx asks `system`, never `process.platform` (docs/platforms.md).
import type { ChildProcess } from 'node:child_process';

export type OsName = 'linux' | 'darwin' | 'win32';

/** A process to start: its command (found on the PATH of `env`), arguments, environment, directory. */
export interface SpawnSpec {
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
}

/** Where a person's files are, and mcpx's among them (docs/platforms.md "Places"). */
export interface Places {
  os: OsName;
  home: string;
  /** The per-user folder that roams: %APPDATA%; ~/Library/Application Support; $XDG_CONFIG_HOME or ~/.config. */
  appData: string;
  /** The per-user folder of this machine: %LOCALAPPDATA%; ~/Library/Application Support; $XDG_STATE_HOME or
   *  ~/.local/state. */
  localAppData: string;
  /** Where user configuration lives: $XDG_CONFIG_HOME where set, else the system's (appData; ~/.config on Linux). */
  configHome: string;
  /** mcpx's state: the endpoint secret, daemon.json, journals ($XDG_STATE_HOME/mcpx where set). */
  stateDir: string;
  /** mcpx's config file. */
  configFile: string;
  /** Where `mcpx: Install 'mcpx' Command` puts the launcher. */
  launcherDir: string;
}

/** How a daemon hears the person: which signals reload its config, which stop it cleanly. */
interface Signals {
  reload: readonly NodeJS.Signals[];
  stop: readonly NodeJS.Signals[];
}

/** A launcher script for `mcpx`: its file name and text (`lines` are comments carried in it). */
export interface Launcher {
  name: string;
  text: string;
}

/** The sandbox mechanism a stdio upstream can be started under here, or why there is none. */
type SandboxMechanism = { kind: 'bubblewrap' } | { kind: 'seatbelt' } | { kind: 'none'; why: string };

export interface Platform {
  readonly os: OsName;
  places(env: NodeJS.ProcessEnv, home: string): Places;
  /** Environment variable names are one name whatever their case (Windows). */
  readonly envCaseless: boolean;
  /** File paths are one path whatever their case (Windows). */
  readonly pathCaseless: boolean;
  /** What every stdio upstream inherits of the gateway's environment (docs/security.md "Upstream environment"). */
  readonly safeEnv: readonly string[];
  readonly signals: Signals;
  /** `~`, `%VAR%` where the system writes them, made absolute against `base`. */
  expandPath(p: string, env: NodeJS.ProcessEnv, home: string, base: string): string;
  /** A file path as a file: URI, as VS Code writes it (file:///c%3A/… on Windows). */
  fileUri(path: string): string;
  /** A directory only its owner can enter (created if missing), checked and narrowed if it was wider. */
  ownerOnlyDir(dir: string): void;
  /** A file only its owner can read: narrowed after it was written. */
  ownerOnlyFile(file: string): void;
  /** Starts `spec` so that nothing it starts outlives this process, however this process ends. */
  spawnGuarded(spec: SpawnSpec): ChildProcess;
  /** Ends a process `spawnGuarded` started and everything it started; `graceMs` where the system has a
   *  polite signal first. */
  killTree(child: ChildProcess, graceMs?: number): Promise<void>;
  /** `spec` started so that a crash writes no core file. */
  withoutCoreDumps(spec: SpawnSpec): SpawnSpec;
  readonly sandbox: SandboxMechanism;
  /** The command that opens `url` in the desktop's browser, or undefined where there is none. */
  openUrl(url: string, env: NodeJS.ProcessEnv): string[] | undefined;
  /** The `mcpx` launcher that runs `cli` with `runtime` as Node, every argument passed on. */
  launcher(runtime: string, cli: string, comments: readonly string[]): Launcher;
  /** The names an `mcpx` command on the PATH may have, the launcher's first. */
  readonly commandNames: readonly string[];
  /** How another program starts `command` with `args` without a shell (a batch file needs cmd.exe). */
  startable(command: string, args: readonly string[]): { command: string; args: string[] };
  /** How a person removes `file` in the system's shell. */
  removeHint(file: string): string;
  /** How a person puts a folder on their PATH. */
  readonly pathAdvice: string;
}
