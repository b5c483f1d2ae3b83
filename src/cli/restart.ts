// `mcpx restart SERVER`: the running gateway stops the server's instances and starts it again (POST
// /v1/servers/{server}/restart, app/servers.ts); prints its state after, or why it did not start (exit 2).
import { isObject } from '../protocol/jsonrpc';
import { type Args, UsageError } from './args';
import type { Command } from './command';
import { printable } from '../kit/printable';
import { out } from './output';
import { gatewayV1 } from './v1';

export const restart: Command = {
  usage: [['restart SERVER [--endpoint URL]', 'stop a server of the running gateway and start it again']],
  flags: ['endpoint'],
  positional: true,
  run,
};

async function run(a: Args): Promise<void> {
  const [server, ...extra] = a.positional;
  if (!server) throw new UsageError('mcpx restart needs a SERVER');
  if (extra.length) throw new UsageError(`mcpx restart: unexpected argument ${JSON.stringify(extra[0])}`);
  const { at, auth, refusal } = gatewayV1(a);
  const res = await fetch(at(`/v1/servers/${encodeURIComponent(server)}/restart`), { method: 'POST', headers: auth });
  // The gateway's 404 quotes no path segment; the person's own argument is named here.
  if (res.status === 404) throw new Error(`no server named ${JSON.stringify(server)} is configured`);
  if (!res.ok) throw await refusal(res);
  const body = (await res.json()) as { servers?: unknown[] };
  const rows = (body.servers ?? []).filter(isObject);
  // A scope: identity server has no instance until a client calls it again.
  const state = rows.length
    ? rows.map((r) => `${String(r.state)}${r.pid ? ` (pid ${String(r.pid)})` : ''}`).join(', ')
    : 'stopped';
  out(`${printable(server)}: restarted, ${printable(state)}`);
}
