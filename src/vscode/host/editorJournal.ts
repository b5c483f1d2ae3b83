// Each editor window journals its own tasks (docs/protocol.md "Tasks across a restart"): the journal has
// one writer, and the editor shares the state directory with `mcpx daemon` (whose journal is
// <state>/tasks.jsonl), so a window writes <state>/editor-tasks/<hash of its workspace>.jsonl — the
// workspace named by its .code-workspace file, or else by its folders as in endpoints.json, so a window
// reload of the same workspace finds its file again and windows of different folders never share one. A second live window of the same folder does not journal
// (its tasks live in memory only, as before): the lock beside the file names the window that does.
// Free of `vscode`, so it is tested in plain Node (test/vscode/editor-journal.test.ts).
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { privateDir } from '../../config/secret';
import { type OwnerLock, waitForLock } from '../../kit/ownerLock';

/** How long a start waits for the window before it to let go of the file: after a window reload the old
 *  extension host may still be exiting. */
const RELOAD_WAIT_MS = 3000;

/** The journal's path within the state directory for the workspace `key` (its .code-workspace file, or
 *  its folders). */
export function editorJournalName(key: string): string {
  return join('editor-tasks', `${createHash('sha256').update(key).digest('hex').slice(0, 32)}.jsonl`);
}

export interface EditorJournal {
  /** Within the state directory (the listener's journalFile). */
  readonly name: string;
  readonly lock: OwnerLock;
}

/** This window's journal, claimed; undefined (said in `log`) when another live window of the same
 *  workspace holds it. */
export async function claimEditorJournal(
  stateDir: string,
  key: string,
  log: (line: string) => void,
  waitMs = RELOAD_WAIT_MS,
): Promise<EditorJournal | undefined> {
  const name = editorJournalName(key);
  const file = join(stateDir, name);
  try {
    privateDir(dirname(file));
    const got = await waitForLock(`${file}.lock`, waitMs);
    if ('release' in got) return { name, lock: got };
    log(
      `tasks are not journalled in this window: another window of the same workspace (process ${got.heldBy}) writes ${file}; they will not outlive a reload of this one`,
    );
  } catch (e) {
    log(`tasks are not journalled in this window: ${(e as Error).message}`);
  }
  return undefined;
}
