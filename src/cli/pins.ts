// `mcpx pins` (docs/gateway.md "Pins"): a running gateway's pinned tools and prompts and what is held
// (GET /v1/pins), the unified diff of a held definition (GET /v1/pins/{server}/diff), accepting it (POST
// …/accept) and forgetting a server's pins (POST …/reset) — the daemon's, or with --endpoint URL another
// gateway's.
import type { PinReview, PinView } from '../gateway/facade';
import { PIN_NOUN } from '../gateway/pins/store';
import { printable, printableLines } from '../kit/printable';
import { type Args, UsageError } from './args';
import type { Command } from './command';
import { gatewayV1 } from './v1';

export const pins: Command = {
  usage: [
    ['pins [SERVER] [--endpoint URL]', 'the pinned tools and prompts, and what is held'],
    ['pins diff SERVER [TOOL]', 'what changed in each held definition (a unified diff)'],
    ['pins accept SERVER [TOOL]', 'accept what is held: pinned as it is now, clients told'],
    ['pins reset SERVER', "forget a server's pins: what it lists next is pinned"],
  ],
  flags: ['endpoint'],
  positional: true,
  run,
};

/** How many positional arguments after the verb each verb takes: [at least, at most]. */
const ARITY: Record<string, [number, number]> = { diff: [1, 2], accept: [1, 2], reset: [1, 1] };

async function run(a: Args): Promise<void> {
  const [verb, ...rest] = a.positional;
  const { at, auth, refusal } = gatewayV1(a);
  const call = async (path: string, init: RequestInit = {}): Promise<unknown> => {
    const res = await fetch(at(path), { ...init, headers: { ...auth, ...(init.headers as Record<string, string>) } });
    if (!res.ok) throw await refusal(res);
    return res.json();
  };
  const arity = verb === undefined ? undefined : ARITY[verb];
  if (!arity) {
    if (a.positional.length > 1)
      throw new UsageError(`mcpx pins: unexpected argument ${JSON.stringify(a.positional[1])}`);
    const path = verb === undefined ? '/v1/pins' : `/v1/pins/${encodeURIComponent(verb)}`;
    const { pins: views } = (await call(path)) as { pins: PinView[] };
    if (!views.length) return void process.stdout.write('no server pinned yet\n');
    for (const v of views) process.stdout.write(describe(v));
    return;
  }
  if (rest.length < arity[0]) throw new UsageError(`mcpx pins ${verb} needs a SERVER`);
  if (rest.length > arity[1])
    throw new UsageError(`mcpx pins ${verb}: unexpected argument ${JSON.stringify(rest[arity[1]])}`);
  const [server, tool] = rest as [string, string | undefined];
  const base = `/v1/pins/${encodeURIComponent(server)}`;
  if (verb === 'diff') {
    const { reviews } = (await call(`${base}/diff${tool ? `?name=${encodeURIComponent(tool)}` : ''}`)) as {
      reviews: PinReview[];
    };
    if (!reviews.length)
      return void process.stdout.write(
        `${printable(`nothing of ${server}${tool ? ` named ${JSON.stringify(tool)}` : ''} is held`)}\n`,
      );
    // The diff's headers name the upstream's definitions, and its lines are their text: each line printable,
    // so a name that conceals what follows it (an escape sequence) shows as the escape it is.
    for (const r of reviews)
      process.stdout.write(
        printableLines(
          r.reason === 'new' ? `${r.server}/${r.name} is new (pins.newTools hold):\n${r.current}` : r.diff,
        ),
      );
    return;
  }
  if (verb === 'accept') {
    const { accepted } = (await call(`${base}/accept`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(tool ? { name: tool } : {}),
    })) as { accepted: string[] };
    return void process.stdout.write(`${printable(`accepted ${accepted.map((n) => `${server}/${n}`).join(', ')}`)}\n`);
  }
  const { reset } = (await call(`${base}/reset`, { method: 'POST' })) as { reset: boolean };
  process.stdout.write(
    `${printable(reset ? `forgot the pins of ${server}; what it lists next is pinned` : `${server} had no pins`)}\n`,
  );
}

/** One server's pins as `mcpx pins` prints them. */
function describe(v: PinView): string {
  const lines = [
    `${v.server} (pins.mode ${v.mode}): ${v.tools.length} tool(s), ${v.prompts.length} prompt(s), ${v.apps.length} app(s) pinned`,
  ];
  if (v.tools.length) lines.push(`  tools: ${v.tools.join(', ')}`);
  if (v.prompts.length) lines.push(`  prompts: ${v.prompts.join(', ')}`);
  if (v.apps.length) lines.push(`  apps: ${v.apps.join(', ')}`);
  for (const h of v.held)
    lines.push(
      `  held ${PIN_NOUN[h.kind]} ${h.name}: ${h.reason === 'new' ? 'new' : `changed (${h.changed.join(', ')})`}; ${h.listed ? 'listed in its pinned form' : 'withheld'}`,
    );
  return `${lines.map(printable).join('\n')}\n`;
}
