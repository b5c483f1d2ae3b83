// `mcpx connect` and `mcpx disconnect` (docs/connect.md): other agents' config files pointed at the
// gateway through the stdio shim, their own servers moved into mcpx's config on --import, and undone.
// The engine is src/connect/; this is its command line: which clients, what is printed (every name, path
// and line taken from a client's file made printable), and the exit status (1 when a client was refused).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultConfigPath, defaultStateDir } from '../config/paths';
import type { Client } from '../connect/client';
import { CLIENTS, clientById } from '../connect/clients/index';
import {
  type ClientRow,
  type ConnectDeps,
  type Outcome,
  connectClients,
  disconnectClients,
  listClients,
} from '../connect/engine';
import { herePlaces } from '../connect/here';
import { type ShimFacts, runningShim } from '../connect/shim';
import { ConfigFileStore } from '../connect/store';
import { printable } from '../kit/printable';
import { launcherPath, ours } from '../vscode/install';
import { type Args, UsageError } from './args';
import type { Command } from './command';
import { out, table } from './output';

export const connect: Command = {
  usage: [
    ['connect --list [--json]', 'every agent mcpx knows: found here, connected, its own servers, the backup'],
    [
      'connect CLIENT... | --all [--profile NAME] [--import] [--dry-run]',
      "write mcpx's entry (the stdio shim) into each agent's own config file;",
      "--import moves the agent's servers into mcpx's config; --dry-run prints",
      'the change as a diff and writes nothing',
    ],
  ],
  flags: ['list', 'json', 'all', 'profile', 'import', 'dry-run', 'config'],
  positional: true,
  run: (a) => run(a, 'connect'),
};

export const disconnect: Command = {
  usage: [
    [
      'disconnect CLIENT... | --all [--dry-run]',
      "remove mcpx's entry and put back what --import took: the file as it was",
    ],
  ],
  flags: ['all', 'dry-run', 'config'],
  positional: true,
  run: (a) => run(a, 'disconnect'),
};

/** What is known of this mcpx for the entry it writes: the launcher when installed, else this runtime
 *  and dist/cli.js. */
function shimFacts(): ShimFacts {
  const { file } = launcherPath();
  return runningShim(ours(readIfThereSync(file)) ? file : undefined);
}

function readIfThereSync(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

export function deps(a: Pick<Args, 'config'>, env: NodeJS.ProcessEnv = process.env): ConnectDeps {
  const stateDir = defaultStateDir(env);
  return {
    places: herePlaces(env),
    stateDir,
    shim: shimFacts(),
    store: new ConfigFileStore(a.config ?? defaultConfigPath(env), join(stateDir, 'imported-env')),
  };
}

async function run(a: Args, verb: 'connect' | 'disconnect'): Promise<void> {
  const d = deps(a);
  if (a.list) {
    if (a.positional.length || a.all || a.import || a.dryRun || a.profile)
      throw new UsageError('mcpx connect --list takes only --json');
    const rows = listClients(d, CLIENTS);
    return out(a.json ? JSON.stringify(rows, null, 2) : listText(rows));
  }
  if (a.json) throw new UsageError('--json goes with mcpx connect --list');
  const clients = chosen(a, d, verb);
  const outcomes =
    verb === 'connect'
      ? await connectClients(d, clients, { profile: a.profile, import: a.import, dryRun: a.dryRun })
      : await disconnectClients(d, clients, { dryRun: a.dryRun });
  for (const o of outcomes) out(outcomeText(o, a.dryRun === true));
  if (outcomes.some((o) => o.status === 'refused')) process.exitCode = 1;
}

/** The clients named, or with --all every client found here (to connect) or connected (to disconnect). */
function chosen(a: Args, d: ConnectDeps, verb: string): Client[] {
  if (a.all && a.positional.length) throw new UsageError(`mcpx ${verb}: name clients or --all, not both`);
  if (a.all) {
    const rows = listClients(d, CLIENTS);
    const keep = (r: ClientRow) => (verb === 'connect' ? r.present : r.connected || r.backup !== undefined);
    return CLIENTS.filter((_, i) => keep(rows[i]!));
  }
  if (!a.positional.length) throw new UsageError(`mcpx ${verb}: which clients? (or --all)`);
  return a.positional.map((id) => {
    const c = clientById(id);
    if (!c) throw new UsageError(`unknown client ${JSON.stringify(id)}: one of ${CLIENTS.map((x) => x.id).join(', ')}`);
    return c;
  });
}

const yes = (b: boolean) => (b ? 'yes' : 'no');

function listText(rows: readonly ClientRow[]): string {
  const lines = table([
    ['CLIENT', 'FOUND', 'CONNECTED', 'SERVERS', 'FILE'],
    ...rows.map((r) => [
      r.id,
      yes(r.present),
      r.drift ? `drift: ${r.drift}` : yes(r.connected),
      String(r.servers),
      r.file,
    ]),
  ]);
  const notes = rows.flatMap((r) => [
    ...(r.problem ? [`${r.id}: cannot read ${printable(r.file)}: ${printable(r.problem)}`] : []),
    ...(r.backup !== undefined
      ? [`${r.id}: backup ${r.backup === null ? '(none: mcpx created the file)' : printable(r.backup)}`]
      : []),
    ...(r.drift
      ? [`${r.id}: mcpx's entry was ${r.drift} since mcpx wrote it: \`mcpx connect ${r.id}\` repairs it`]
      : []),
  ]);
  return [lines.trimEnd(), ...notes].join('\n');
}

function outcomeText(o: Outcome, dry: boolean): string {
  const head = `${o.name}: `;
  if (o.status === 'refused')
    return `${head}refused, file untouched: ${printable(o.file)}: ${printable(o.problem ?? '')}`;
  const said = {
    connected: dry ? 'would be connected' : 'connected',
    unchanged: 'already connected, nothing to change',
    disconnected: dry ? 'would be disconnected' : 'disconnected',
    'not-connected': 'not connected',
  }[o.status];
  const lines = [`${head}${said} (${printable(o.file)})`];
  for (const i of o.imported)
    lines.push(
      `  ${dry ? 'would import' : 'imported'} ${printable(i.name)}${i.as !== i.name ? ` as ${printable(i.as)} (mcpx already has ${printable(i.name)})` : ''}${i.dropped.length ? `; not carried over: ${i.dropped.map(printable).join(', ')}` : ''}`,
    );
  for (const k of o.kept) lines.push(`  left ${printable(k.name)} in the file: ${printable(k.why)}`);
  for (const s of o.stayed ?? [])
    lines.push(`  ${printable(s)} stays in mcpx's config: changed there since it was imported`);
  if (dry && o.diff) lines.push(...o.diff.trimEnd().split('\n').map(printable));
  return lines.join('\n');
}
