// `mcpx tasks`: one client's tasks at a running gateway (GET /v1/tasks) — with the 2026-07-28 background
// calls it abandoned —, or every task with --all; `mcpx tasks cancel ID` cancels one (POST
// /v1/tasks/{id}/cancel). docs/security.md "Tasks belong to their owner".
import { identityHeader } from '../app/routes';
import { type Args, UsageError } from './args';
import type { Command } from './command';
import { printable } from '../kit/printable';
import { table } from './output';
import { v1 } from './v1';

export const tasks: Command = {
  usage: [
    [
      'tasks (--identity NAME | --session ID | --all) [--endpoint URL]',
      'list the tasks of one client (its _meta["dev.mcpx/session"]',
      'NAME, or a legacy session ID), or every task (--all: needs',
      'tasks.adminAccess on the gateway)',
    ],
    ['tasks cancel ID (--identity NAME | --session ID | --all) [--endpoint URL]', 'cancel one'],
  ],
  flags: ['identity', 'session', 'all', 'endpoint'],
  positional: true,
  run,
};

interface TaskRow {
  id: string;
  /** A task, or a 2026-07-28 background call its client abandoned (app/background.ts). */
  kind: 'task' | 'background';
  label: string;
  client: string | null;
  era: string;
  status: string;
  statusMessage: string | null;
  createdAt: string;
  updatedAt: string;
  progress: { progress: number; total?: number } | null;
}

async function run(a: Args): Promise<void> {
  const whose = [a.identity !== undefined, a.session !== undefined, a.all === true].filter(Boolean).length;
  if (whose !== 1)
    throw new UsageError('mcpx tasks: name whose tasks with one of --identity NAME, --session ID or --all');
  const { at, auth, refusal } = v1(a);
  const headers: Record<string, string> = {
    ...auth,
    ...(a.identity !== undefined ? identityHeader(a.identity) : {}),
    ...(a.session !== undefined ? { 'Mcp-Session-Id': a.session } : {}),
  };
  const [verb, id, ...extra] = a.positional;
  if (verb === undefined || verb === 'list') {
    if (id !== undefined) throw new UsageError(`mcpx tasks: unexpected argument ${JSON.stringify(id)}`);
    const res = await fetch(at('/v1/tasks'), { headers });
    if (!res.ok) throw await refusal(res);
    const { tasks: rows } = (await res.json()) as { tasks: TaskRow[] };
    if (rows.length === 0) return void process.stdout.write('no tasks\n');
    process.stdout.write(taskTable(rows));
    return;
  }
  if (verb !== 'cancel') throw new UsageError(`mcpx tasks: expected list or cancel, got ${JSON.stringify(verb)}`);
  if (!id) throw new UsageError('mcpx tasks cancel needs an ID');
  if (extra.length) throw new UsageError(`mcpx tasks: unexpected argument ${JSON.stringify(extra[0])}`);
  const res = await fetch(at(`/v1/tasks/${encodeURIComponent(id)}/cancel`), { method: 'POST', headers });
  if (!res.ok) throw await refusal(res);
  const { task } = (await res.json()) as { task: TaskRow };
  process.stdout.write(`cancelled ${printable(`${task.id}  ${task.label}`)}\n`);
}

/** Tasks as a table, oldest first: one line each, columns padded to their widest cell. */
function taskTable(rows: TaskRow[], now = Date.now()): string {
  const age = (iso: string) => {
    const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
    return s < 120 ? `${s}s` : s < 7200 ? `${Math.round(s / 60)}m` : `${Math.round(s / 3600)}h`;
  };
  const progress = (p: TaskRow['progress']) =>
    p ? (p.total !== undefined ? `${p.progress}/${p.total}` : `${p.progress}`) : '';
  return table([
    ['ID', 'KIND', 'STATUS', 'ERA', 'AGE', 'CLIENT', 'PROGRESS', 'LABEL', 'MESSAGE'],
    ...rows.map((t) => [
      t.id,
      t.kind,
      t.status,
      t.era,
      age(t.createdAt),
      t.client ?? '',
      progress(t.progress),
      t.label,
      t.statusMessage ?? '',
    ]),
  ]);
}
