// `mcpx exec FILE|-`: a script run as mcpx_exec runs it (docs/exec.md), through the gateway
// (src/cli/client.ts): what it logs on stderr, what it returns on stdout as JSON (a string as itself
// with --text); a throw, a bound or a refusal is printed on stderr with exit 1.
import { readFile } from 'node:fs/promises';
import { isObject } from '../protocol/jsonrpc';
import { type Args, UsageError } from './args';
import { readStdin } from './call';
import { textOf, timeoutMeta, withGateway } from './client';
import type { Command } from './command';
import { printableJson, printableLines } from '../kit/printable';
import { out } from './output';

export const exec: Command = {
  usage: [
    [
      'exec FILE|- [--text] [--timeout 30s] [--connect auto|URL|ssh://HOST] [--profile NAME]',
      'run a script as mcpx_exec does (- for stdin); exit',
      '1 when it throws or is stopped',
    ],
  ],
  flags: ['text', 'timeout', 'connect', 'profile'],
  positional: true,
  run,
};

async function run(a: Args): Promise<void> {
  const [file, ...extra] = a.positional;
  if (!file) throw new UsageError('mcpx exec needs a FILE (or - for stdin)');
  if (extra.length) throw new UsageError(`mcpx exec: unexpected argument ${JSON.stringify(extra[0])}`);
  const meta = timeoutMeta(a);
  let script: string;
  try {
    script = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  } catch (e) {
    throw new Error(`cannot read the script ${JSON.stringify(file)}: ${(e as Error).message}`);
  }
  const r = await withGateway(a, (c) =>
    c.request('tools/call', { name: 'mcpx_exec', arguments: { script } }, { meta }),
  );
  if (r.isError === true) {
    process.stderr.write(`${printableLines(textOf(r))}\n`);
    process.exitCode = 1;
    return;
  }
  const s = isObject(r.structuredContent) ? r.structuredContent : {};
  // What it logged may quote an upstream: nothing a terminal would act on.
  for (const line of Array.isArray(s.logs) ? s.logs : []) process.stderr.write(`${printableLines(String(line))}\n`);
  if (s.result === undefined) return;
  out(a.text && typeof s.result === 'string' ? printableLines(s.result) : printableJson(s.result, 2));
}
