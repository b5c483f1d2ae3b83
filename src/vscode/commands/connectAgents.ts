// `mcpx: Connect Agents…`: the agents found on this machine in one multi-select QuickPick (those connected
// checked); what checking and unchecking would change to their files shown as a diff before anything is
// written; --import offered where an agent has servers of its own. `mcpx: Repair Agent Connections` writes
// mcpx's entry again where it was changed or removed by hand (the status item's click). docs/connect.md.
import type { Client } from '../../connect/client';
import type { ClientRow, ConnectDeps, Outcome } from '../../connect/engine';
import { printable } from '../../kit/printable';
import { editorConnectDeps } from '../agents';
import { type Command, type Deps, command } from './command';

/** The engine, loaded on first use (it brings the JSONC and TOML editors). */
const engine = () => import('../../connect/engine');
const clients = async () => (await import('../../connect/clients/index')).CLIENTS;

const state = (r: ClientRow) =>
  r.problem
    ? `cannot read its file: ${r.problem}`
    : r.drift
      ? `connected, but mcpx's entry was ${r.drift} by hand`
      : r.connected
        ? 'connected'
        : `not connected · ${r.servers} server(s) of its own`;

/** What the person is told of the outcomes. */
function summary(outcomes: readonly Outcome[]): { text: string; refused: boolean } {
  const names = (s: Outcome['status']) => outcomes.filter((o) => o.status === s).map((o) => o.name);
  const imported = outcomes.flatMap((o) => o.imported.map((i) => (i.as === i.name ? i.name : `${i.name} as ${i.as}`)));
  const refused = outcomes.filter((o) => o.status === 'refused');
  const parts = [
    names('connected').length ? `connected ${names('connected').join(', ')}` : '',
    names('disconnected').length ? `disconnected ${names('disconnected').join(', ')}` : '',
    imported.length ? `moved into mcpx.servers: ${imported.join(', ')}` : '',
    ...refused.map((o) => `refused ${o.name}, file untouched: ${o.file}: ${o.problem}`),
  ].filter(Boolean);
  return { text: printable(`mcpx: ${parts.join('; ') || 'nothing to change'}.`), refused: refused.length > 0 };
}

/** The command, over the engine inputs `env` gives (the unit tests give a temporary home). */
export function connectAgentsWith(env: (d: Deps) => ConnectDeps): Command {
  return command(async (d: Deps): Promise<Outcome[] | undefined> => {
    const cd = env(d);
    const { listClients, connectClients, disconnectClients } = await engine();
    const all = await clients();
    const rows = listClients(cd, all);
    const shown = rows.filter((r) => r.present || r.connected || r.backup !== undefined);
    if (!shown.length)
      return void d.window.showInformationMessage('mcpx: no agent found on this machine (see mcpx connect --list).');
    const picked = await d.window.showQuickPick(
      shown.map((r) => ({
        label: printable(r.name),
        description: printable(state(r)),
        detail: printable(r.file),
        picked: r.connected,
        row: r,
      })),
      { canPickMany: true, title: 'mcpx: Connect Agents — the checked ones reach the gateway' },
    );
    if (!picked) return undefined;
    const on = new Set(picked.map((p) => p.row.id));
    const byId = (ids: string[]) => all.filter((c) => ids.includes(c.id));
    const toConnect = byId(shown.filter((r) => on.has(r.id) && (!r.connected || r.drift)).map((r) => r.id));
    const toDisconnect = byId(
      shown.filter((r) => !on.has(r.id) && (r.connected || r.backup !== undefined)).map((r) => r.id),
    );
    const own = shown.filter((r) => toConnect.some((c) => c.id === r.id) && r.servers > 0);
    let move = false;
    if (own.length) {
      const how = await d.window.showQuickPick(
        [
          { label: 'Keep their own servers where they are', move: false },
          {
            label: 'Move their servers into mcpx (--import)',
            detail: `${own.map((r) => `${r.name}: ${r.servers}`).join(', ')} — then every agent shares them through the gateway`,
            move: true,
          },
        ],
        { title: 'mcpx: the agents have servers of their own' },
      );
      if (!how) return undefined;
      move = how.move;
    }
    const plan = async (dryRun: boolean) => [
      ...(toConnect.length ? await connectClients(cd, toConnect, { import: move, dryRun }) : []),
      ...(toDisconnect.length ? await disconnectClients(cd, toDisconnect, { dryRun }) : []),
    ];
    const preview = await plan(true);
    const diff = preview.map((o) => o.diff).join('');
    if (!diff) {
      const s = summary(preview.filter((o) => o.status === 'refused'));
      return void (s.refused
        ? d.window.showWarningMessage(s.text)
        : d.window.showInformationMessage('mcpx: nothing to change.'));
    }
    await showDiff(d, diff);
    const ok = await d.window.showQuickPick(
      [
        { label: `Apply: write ${preview.filter((o) => o.diff).length} file(s)`, apply: true },
        { label: 'Cancel', apply: false },
      ],
      { title: 'mcpx: Connect Agents — apply the change shown?' },
    );
    if (!ok?.apply) return undefined;
    const outcomes = await plan(false);
    const s = summary(outcomes);
    void (s.refused ? d.window.showWarningMessage(s.text) : d.window.showInformationMessage(s.text));
    return outcomes;
  });
}

/** The change as a read-only diff document beside the QuickPick. */
async function showDiff(d: Deps, diff: string): Promise<void> {
  const doc = await d.config.openTextDocument({ content: diff, language: 'diff' });
  await d.window.showTextDocument(doc, { preview: true, preserveFocus: true });
}

export const connectAgents = connectAgentsWith(editorConnectDeps);

/** `mcpx: Repair Agent Connections`: mcpx's entry written again, with the profile it had, in every
 *  connected agent whose entry was changed or removed by hand. */
export function repairAgentsWith(env: (d: Deps) => ConnectDeps): Command {
  return command(async (d: Deps): Promise<Outcome[]> => {
    const cd = env(d);
    const { listClients, connectClients } = await engine();
    const all = await clients();
    const drifted = listClients(cd, all).filter((r) => r.drift);
    const outcomes: Outcome[] = [];
    for (const r of drifted) {
      const c = all.find((x) => x.id === r.id) as Client;
      outcomes.push(...(await connectClients(cd, [c], { profile: r.profile })));
    }
    void d.window.showInformationMessage(
      drifted.length ? summary(outcomes).text : 'mcpx: every connected agent has its entry as mcpx wrote it.',
    );
    return outcomes;
  });
}

export const repairAgents = repairAgentsWith(editorConnectDeps);
