// `mcpx profiles` (docs/gateway.md "Profiles"): a running gateway's profiles (GET /v1/profiles) — each
// one's URL with the endpoint secret, the stdio shim command that reaches it, its mode and its counts of
// servers and tools — the daemon's, or with --endpoint URL another gateway's.
import type { ProfileSummary } from '../gateway/facade';
import { printable, printableJson } from '../kit/printable';
import { type Args, UsageError } from './args';
import type { Command } from './command';
import { gatewayV1 } from './v1';

export const profiles: Command = {
  usage: [['profiles [--endpoint URL] [--json]', "each profile's URL, shim command and counts of servers and tools"]],
  flags: ['endpoint', 'json'],
  positional: true,
  run,
};

type Shown = ProfileSummary & { url: string; shim: string[] };

async function run(a: Args): Promise<void> {
  if (a.positional.length)
    throw new UsageError(`mcpx profiles: unexpected argument ${JSON.stringify(a.positional[0])}`);
  const { at, auth, refusal } = gatewayV1(a);
  const res = await fetch(at('/v1/profiles'), { headers: auth });
  if (!res.ok) throw await refusal(res);
  const { profiles: list } = (await res.json()) as { profiles: Shown[] };
  if (a.json) return void process.stdout.write(`${printableJson(list, 2)}\n`);
  if (!list.length) return void process.stdout.write('no profiles configured (docs/gateway.md "Profiles")\n');
  for (const p of list) {
    const lines = [
      `${p.name} (${p.mode}): ${p.servers.length} server(s), ${p.tools} tool(s) offered, ${p.listed} listed`,
      `  url:  ${p.url}`,
      `  shim: ${p.shim.join(' ')}`,
      `  servers: ${p.servers.join(', ') || 'none'}`,
      ...(p.errors ?? []).map((e) => `  ${e.server} could not list its tools: ${e.error}`),
    ];
    process.stdout.write(`${lines.map(printable).join('\n')}\n`);
  }
}
