// `mcpx activity`: what every agent did (docs/gateway.md "Activity") — the activity log's records as a
// table (oldest first, the newest last) or as JSON lines, from a running gateway's GET /v1/activity — the
// one --endpoint names, else the running daemon, else the /v1 default — or, when none answers, from the
// files in the state directory. `--follow` stays on the gateway's stream.
import { BadQuery, sinceOf } from '../app/activity';
import { defaultStateDir } from '../config/paths';
import { Settings, envLayer } from '../config/settings';
import { activityDir, readActivity } from '../gateway/activity/files';
import type { ActivityRecord, Decision } from '../gateway/activity/record';
import { runningDaemon } from '../shim/resolve';
import { type Args, UsageError } from './args';
import type { Command } from './command';
import { printableJson } from '../kit/printable';
import { out, table } from './output';
import { v1 } from './v1';

export const activity: Command = {
  usage: [
    [
      'activity [--follow] [--client NAME] [--server NAME] [--since 1h] [--json] [--endpoint URL]',
      "every agent's calls: time, client, server, target, decision,",
      'outcome, duration (the last 100); from the running gateway,',
      'else from the files in the state directory',
    ],
  ],
  flags: ['follow', 'client', 'server', 'since', 'json', 'endpoint'],
  run,
};

const LIMIT = 100;
const HEADER = ['TIME', 'CLIENT', 'SERVER', 'TARGET', 'DECISION', 'OUTCOME', 'DURATION'];

async function run(a: Args): Promise<void> {
  let since: number | undefined;
  try {
    since = a.since === undefined ? undefined : sinceOf(a.since);
  } catch (e) {
    if (e instanceof BadQuery) throw new UsageError(`--since: ${e.message.replace(/^since: /, '')}`);
    throw e;
  }
  // The gateway named, else the running daemon (<state>/daemon.json), else the /v1 default (MCPX_PORT).
  const stateDir = defaultStateDir(process.env);
  const { at, auth, refusal } = v1({ ...a, endpoint: a.endpoint ?? runningDaemon(stateDir)?.endpoint });
  const query = new URLSearchParams({ limit: String(LIMIT) });
  if (a.client !== undefined) query.set('client', a.client);
  if (a.server !== undefined) query.set('server', a.server);
  if (since !== undefined) query.set('since', new Date(since).toISOString());
  if (a.follow) query.set('follow', '1');
  let res: Response;
  try {
    res = await fetch(at(`/v1/activity?${query}`), { headers: auth });
  } catch (e) {
    // No gateway answered: the files hold what every gateway wrote (one named with --endpoint must answer).
    if (a.endpoint !== undefined) throw new Error(`no gateway answered at ${a.endpoint}: ${(e as Error).message}`);
    if (a.follow)
      throw new Error('--follow needs a running gateway, and none answered (without --follow, the files are read)');
    const settings = new Settings([{ source: 'env', values: envLayer(process.env) }]);
    const oldest = Date.now() - settings.duration('activity.retention');
    const filter = { client: a.client, server: a.server, since };
    return show(await readActivity(activityDir(stateDir), filter, LIMIT, oldest), a.json);
  }
  if (!res.ok) throw await refusal(res);
  if (!a.follow) return show(((await res.json()) as { records: ActivityRecord[] }).records, a.json);
  if (!a.json) process.stdout.write(table([HEADER]));
  await stream(res, (r) => show([r], a.json, false));
}

/** Records (newest first, as the API gives them) printed oldest first. */
function show(records: ActivityRecord[], json = false, header = true): void {
  const rows = [...records].reverse();
  if (json) {
    for (const r of rows) out(printableJson(r));
    return;
  }
  if (!rows.length) return header ? out('no activity recorded') : undefined;
  const cells = rows.map(cellsOf);
  process.stdout.write(table(header ? [HEADER, ...cells] : cells));
}

/** `allow (default)`, `ask (permissions.rules[2], editor: allow once)`. */
const decisionOf = (d: Decision): string => `${d.action} (${d.rule}${d.approvedBy ? `, ${d.approvedBy}` : ''})`;

function cellsOf(r: ActivityRecord): string[] {
  const o = r.outcome;
  return [
    r.time.replace(/\.\d+Z$/, 'Z'),
    r.client.name ?? r.client.identity,
    r.server,
    r.target,
    decisionOf(r.decision),
    `${o.status}${o.code !== undefined ? ` ${o.code}` : ''}`,
    `${r.durationMs} ms`,
  ];
}

/** The SSE stream of GET /v1/activity?follow=1: each `record` event to `each`, until it ends. */
async function stream(res: Response, each: (r: ActivityRecord) => void): Promise<void> {
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    for (let i = buf.indexOf('\n\n'); i !== -1; i = buf.indexOf('\n\n')) {
      const event = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const data = /^data: (.*)$/m.exec(event)?.[1];
      if (/^event: record$/m.test(event) && data) each(JSON.parse(data) as ActivityRecord);
      else if (/^event: end$/m.test(event) && data) throw new Error(`the gateway ended the stream: ${data}`);
    }
  }
}
