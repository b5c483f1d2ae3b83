// The activity log's files (docs/gateway.md "Activity"): `<state>/activity/<writer>.jsonl` and its
// rotations `<writer>.jsonl.1` … `.3`, one writer per file — `daemon` (mcpx daemon), `editor-<hash of the
// window's workspace folders>`, `standalone-<pid>` (mcpx serve --standalone) — so no two processes ever
// append to one file. Readers merge every writer's files by time; a line that does not parse (the torn
// last line a crash leaves) is skipped.
import { createHash } from 'node:crypto';
import { readFile, readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { ActivityFilter, ActivityRecord } from './record';

/** Rotations kept beside the file: it and they together stay within activity.maxBytes. */
export const ROTATIONS = 3;

export const activityDir = (stateDir: string): string => join(stateDir, 'activity');

/** The writer name of an editor window serving these workspace folders (as endpoints.json keys them). */
export function editorWriter(folders: string): string {
  return `editor-${createHash('sha256').update(folders).digest('hex').slice(0, 16)}`;
}

export const fileOf = (dir: string, writer: string, rotation = 0): string =>
  join(dir, rotation === 0 ? `${writer}.jsonl` : `${writer}.jsonl.${rotation}`);

const NAME = /^([A-Za-z0-9._-]+)\.jsonl(?:\.(\d+))?$/;

/** Every writer's files in `dir`, each list newest first (the file, then .1, .2 …). */
async function writers(dir: string): Promise<Map<string, string[]>> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return new Map();
  }
  const by = new Map<string, Array<[number, string]>>();
  for (const n of names) {
    const m = NAME.exec(n);
    if (!m) continue;
    const list = by.get(m[1]!) ?? [];
    list.push([Number(m[2] ?? 0), join(dir, n)]);
    by.set(m[1]!, list);
  }
  return new Map([...by].map(([w, l]) => [w, l.sort((a, b) => a[0] - b[0]).map(([, f]) => f)]));
}

/** Remove the activity files last written before `before` (ms since the epoch), any writer's: a file's
 *  newest record is no newer than its last write. The count removed. */
export async function prune(dir: string, before: number): Promise<number> {
  let removed = 0;
  for (const files of (await writers(dir)).values())
    for (const f of files) {
      try {
        if ((await stat(f)).mtimeMs < before) {
          await unlink(f);
          removed++;
        }
      } catch {
        // gone already, or not ours to remove: the next prune tries again
      }
    }
  return removed;
}

const matches = (r: ActivityRecord, f: ActivityFilter, since: number): boolean =>
  (f.client === undefined || r.client.name === f.client || r.client.identity === f.client) &&
  (f.server === undefined || r.server === f.server) &&
  Date.parse(r.time) >= since;

/** A line as a record, or undefined when it is not one (torn, or not ours). */
function parse(line: string): ActivityRecord | undefined {
  if (!line) return undefined;
  try {
    const r = JSON.parse(line) as ActivityRecord;
    return typeof r.time === 'string' && typeof r.server === 'string' && typeof r.client === 'object' ? r : undefined;
  } catch {
    return undefined;
  }
}

/** The newest `limit` records in `dir` that match `filter`, newest first, none older than `oldest`.
 *  Each writer's files are read newest first, and no further once `limit` of its records matched. */
export async function readActivity(
  dir: string,
  filter: ActivityFilter,
  limit: number,
  oldest: number,
): Promise<ActivityRecord[]> {
  const since = Math.max(filter.since ?? 0, oldest);
  const all: ActivityRecord[] = [];
  for (const files of (await writers(dir)).values()) {
    let found = 0;
    for (const f of files) {
      let text: string;
      try {
        text = await readFile(f, 'utf8');
      } catch {
        continue; // rotated or removed while we read: its records are in the next name, or gone
      }
      for (const line of text.split('\n')) {
        const r = parse(line);
        if (r && matches(r, filter, since)) {
          all.push(r);
          found++;
        }
      }
      if (found >= limit) break;
    }
  }
  return newestFirst(all).slice(0, limit);
}

export const newestFirst = (rs: ActivityRecord[]): ActivityRecord[] =>
  rs.sort((a, b) => Date.parse(b.time) - Date.parse(a.time));

export { matches as matchesFilter };
