// `mcpx daemon` follows its config file: a change on disk calls `changed` once the writes settle. The
// directory is watched, not the file, so an editor's save by rename (write a temporary file, rename it
// over the old one) is seen too; events on other files of the directory are ignored. A file that does not
// exist yet — a fresh machine, before the first `mcpx install` — is waited for: the nearest directory
// that exists is watched for the next one on the way, then that one, until the file appears.
import { type FSWatcher, existsSync, watch } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';

/** Writes within this long are one change: an editor's save is several events. */
export const SETTLE_MS = 200;

/** The nearest directory on the way to `dir` that exists, and the name in it that leads on. */
function nearest(dir: string, file: string): { at: string; next: string } {
  let at = dir;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  return { at, next: at === dir ? basename(file) : relative(at, dir).split(sep)[0]! };
}

/** Watch `file`; returns the function that stops watching. */
export function followConfig(file: string, changed: () => void, log?: (line: string) => void): () => void {
  const path = resolve(file);
  const dir = dirname(path);
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  let stopped = false;
  const settle = () => {
    clearTimeout(timer);
    timer = setTimeout(changed, SETTLE_MS);
  };
  const arm = (): void => {
    const { at, next } = nearest(dir, path);
    try {
      watcher = watch(at, { persistent: false }, (_event, f) => {
        // Some platforms do not say which file changed: then any change may be it.
        if (f !== null && f.toString() !== next) return;
        if (at === dir) return settle();
        if (!existsSync(join(at, next))) return;
        // A directory on the way appeared: follow it down (the file may be there already).
        watcher?.close();
        if (stopped) return;
        arm();
        if (existsSync(path)) settle();
      });
    } catch (e) {
      log?.(
        `not following ${path} (${(e as Error).message}): after changing it, run \`mcpx reload\` (or send SIGHUP, where there is one)`,
      );
      return;
    }
    watcher.on('error', (e) => log?.(`stopped following ${path}: ${e.message}`));
    if (at !== dir) log?.(`${dir} does not exist yet: waiting for ${path} to be created`);
  };
  arm();
  return () => {
    stopped = true;
    clearTimeout(timer);
    watcher?.close();
  };
}

/** What the daemon says at start of where its servers come from and how to add one. */
export function serversLine(path: string, count: number, exists: boolean): string {
  const add = '`mcpx install NAME` adds one from the MCP Registry (`mcpx registry search WORD` finds it)';
  return exists
    ? `servers: ${count} from ${path} (followed: edit it, or ${add})`
    : `servers: none yet — they go in ${path}, which does not exist; ${add}, or write the file: the daemon picks it up`;
}
