// `mcpx reload`: the running daemon reads its config file again and applies it in place (POST
// /v1/reload; docs/gateway.md "Changing the configuration"). Prints what was added, removed, changed and
// kept; a refused configuration's problems on stderr, exit status 1 (the daemon keeps the old one).
import { defaultStateDir } from '../config/paths';
import { runningDaemon } from '../shim/resolve';
import { type Args, UsageError } from './args';
import type { Command } from './command';
import { type ConfigDiff, describeDiff } from '../gateway/reload';
import { printable } from '../kit/printable';
import { v1 } from './v1';

export const reload: Command = {
  usage: [['reload [--endpoint URL]', 'apply the config file to the running daemon in place']],
  flags: ['endpoint'],
  positional: true,
  run,
};

async function run(a: Args): Promise<void> {
  if (a.positional.length) throw new UsageError(`mcpx reload: unexpected argument ${JSON.stringify(a.positional[0])}`);
  // The daemon's own URL (with its secret) unless --endpoint names another gateway.
  const endpoint = a.endpoint ?? runningDaemon(defaultStateDir(process.env))?.endpoint;
  if (!endpoint) throw new Error('no running daemon (mcpx daemon) to reload; name one with --endpoint URL');
  const { at, auth, refusal } = v1({ ...a, endpoint });
  const res = await fetch(at('/v1/reload'), { method: 'POST', headers: auth });
  if (res.status === 422) {
    const { problems } = (await res.json()) as { problems: string[] };
    for (const p of problems) process.stderr.write(`mcpx reload: ${printable(p)}\n`);
    process.stderr.write('mcpx reload: the configuration was not applied; the daemon runs the one it had\n');
    process.exitCode = 1;
    return;
  }
  if (!res.ok) throw await refusal(res);
  process.stdout.write(
    `${describeDiff((await res.json()) as ConfigDiff)
      .split('; ')
      .join('\n')}\n`,
  );
}
