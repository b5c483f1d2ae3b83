// `mcpx daemon` follows its config file: a change on disk calls `changed` once the writes settle. The
// directory is watched, not the file, so an editor's save by rename (write a temporary file, rename it
// over the old one) is seen too; events on other files of the directory are ignored.
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';

/** Writes within this long are one change: an editor's save is several events. */
const SETTLE_MS = 200;

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
    log?.(`not following ${path}: ${(e as Error).message}`);
    return () => undefined;
  }
  watcher.on('error', (e) => log?.(`stopped following ${path}: ${e.message}`));
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
