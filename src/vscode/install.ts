// The `mcpx` launcher on the PATH: a file that runs this extension's own CLI bundle (dist/cli.js) with
// VS Code's own runtime — the extension host's executable with ELECTRON_RUN_AS_NODE=1, as VS Code's `code`
// command runs — so agents and terminals outside the editor reach the gateway with no separate Node.
// ~/.local/bin/mcpx (a sh script) on Linux and macOS, %LOCALAPPDATA%\Programs\mcpx\mcpx.cmd on Windows;
// MCPX_INSTALL_DIR puts it elsewhere (the editor tests use it). Only a file carrying MARKER is ours:
// anything else there is replaced only after the person agrees, and never removed (the commands
// mcpx.installCli and mcpx.uninstallCli ask; commands/installCli.ts).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { getEnv, places, system } from '../platform';

const MARKER = 'mcpx-launcher: written by the mcpx VS Code extension; "mcpx: Uninstall \'mcpx\' Command" removes it';
/** The line after MARKER: what the launcher runs, as JSON (one line whatever the paths hold). */
const TARGET = 'mcpx-launcher-target: ';

/** The launcher's folder and file for this platform. */
export function launcherPath(): { dir: string; file: string } {
  const dir = process.env.MCPX_INSTALL_DIR || places().launcherDir;
  return { dir, file: join(dir, system.commandNames[0]!) };
}

/** The launcher this extension host would write: cli.js run with this runtime as Node. */
function wanted(extensionPath: string): string {
  const runtime = process.execPath;
  const cli = join(extensionPath, 'dist', 'cli.js');
  return system.launcher(runtime, cli, [MARKER, `${TARGET}${JSON.stringify({ runtime, cli })}`]).text;
}

/** The file's text; undefined when there is none. */
export async function readIfThere(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

export const ours = (text: string | undefined): text is string => text?.includes(MARKER) === true;

/** Written whole or not at all (a rename), executable. */
async function writeLauncher(dir: string, file: string, text: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text, { mode: 0o755 });
  await chmod(tmp, 0o755); // the umask may have narrowed it
  await rename(tmp, file);
}

/** Whether a folder is on this process's PATH. */
function onPath(dir: string): boolean {
  const norm = (p: string) => (system.pathCaseless ? p.toLowerCase() : p).replace(/[\\/]+$/, '');
  return pathDirs().some((p) => norm(p) === norm(dir));
}

const pathDirs = () => (getEnv(process.env, 'PATH', system.envCaseless) ?? '').split(delimiter).filter(Boolean);

/** What to do when the launcher's folder is not on the PATH. */
export const pathHint = (dir: string): string =>
  onPath(dir)
    ? ''
    : ` ${dir} is not on your PATH: add it (${system.pathAdvice}), or call the launcher by its full path.`;

/** How a person removes the launcher by hand. */
export const removeHint = (file: string) => system.removeHint(file);

/** Writes this extension host's launcher into `dir`. */
export async function installLauncher(dir: string, file: string, extensionPath: string): Promise<void> {
  await writeLauncher(dir, file, wanted(extensionPath));
}

/** At activation: our launcher pointing at a runtime or bundle that is gone (VS Code or the extension
 *  was updated, and the old folder removed) is rewritten for this one. A launcher whose target is still
 *  there is left alone: another VS Code may have written it. Errors are nobody's business here. */
export async function refreshLauncher(extensionPath: string): Promise<void> {
  const { dir, file } = launcherPath();
  const text = await readIfThere(file).catch(() => undefined);
  if (!ours(text)) return;
  const line = text.split(/\r?\n/).find((l) => l.includes(TARGET));
  let target: { runtime?: string; cli?: string } = {};
  try {
    // (A .cmd launcher spells each % of its comments %%.)
    target = JSON.parse(line!.slice(line!.indexOf(TARGET) + TARGET.length).replace(/%%/g, '%')) as typeof target;
  } catch {
    // an older launcher of ours without its target: rewritten
  }
  if (target.runtime && target.cli && existsSync(target.runtime) && existsSync(target.cli)) return;
  if (!existsSync(join(extensionPath, 'dist', 'cli.js'))) return;
  await writeLauncher(dir, file, wanted(extensionPath)).catch(() => undefined);
}

/** How a host outside the editor starts the stdio shim (`mcpx serve --transport stdio`): our launcher by
 *  its full path when installed (hosts started from a desktop often lack ~/.local/bin on their PATH), an
 *  `mcpx` already on the PATH, else this extension's bundle under a Node the host must have. A launcher
 *  that is a batch file is started through cmd.exe: the entry then works from any host, and typed into
 *  cmd.exe or PowerShell (docs/platforms.md "The extension on Windows"). */
export function shimCommand(extensionPath: string): { command: string; args: string[]; note?: string } {
  const args = ['serve', '--transport', 'stdio'];
  const { file } = launcherPath();
  if (ours(readSync(file))) return system.startable(file, args);
  const name = system.commandNames.find((n) => pathDirs().some((d) => isFile(join(d, n))));
  if (name) return system.startable(name, args);
  return {
    command: 'node',
    args: [join(extensionPath, 'dist', 'cli.js'), ...args],
    note: `it needs a Node.js on that host's PATH, and names this version's folder: run "mcpx: Install 'mcpx' Command" and copy again for a command that needs neither`,
  };
}

function readSync(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}
