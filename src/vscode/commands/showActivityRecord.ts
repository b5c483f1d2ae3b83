// A row of the Activity view, opened: the whole record — its arguments (redacted) and its result, kept in
// memory only — as a read-only JSON document.
import type { ActivityRecord } from '../../gateway/editorPort';
import { command } from './command';

export const showActivityRecord = command(async (d, r?: ActivityRecord) => {
  if (!r) return;
  await d.results.showJson(`${r.server} · ${r.target} ${r.time}`, r);
});
