// `mcpx daemon` follows its config file: a change on disk calls `changed` once the writes settle. The
// directory is watched, not the file, so an editor's save by rename (write a temporary file, rename it
// over the old one) is seen too; events on other files of the directory are ignored.
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';

/** Writes within this long are one change: an editor's save is several events. */
export const SETTLE_MS = 200;

/** Watch `file`; returns the function that stops watching. No directory to watch: nothing is followed. */
export function followConfig(file: string, changed: () => void, log?: (line: string) => void): () => void {
  const path = resolve(file);
  const name = basename(path);
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher;
  try {
    watcher = watch(dirname(path), { persistent: false }, (_event, f) => {
      // Some platforms do not say which file changed: then any change may be it.
      if (f !== null && f.toString() !== name) return;
      clearTimeout(timer);
      timer = setTimeout(changed, SETTLE_MS);
    });
  } catch (e) {
    // A fresh machine has no config directory yet: the embedded default is in use, and `mcpx reload`
    // (or SIGHUP, where there is one) reads a file created later.
    const why =
      (e as NodeJS.ErrnoException).code === 'ENOENT' ? `${dirname(path)} does not exist` : (e as Error).message;
    log?.(`not following ${path} (${why}): after creating it, run \`mcpx reload\``);
    return () => undefined;
  }
  watcher.on('error', (e) => log?.(`stopped following ${path}: ${e.message}`));
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
