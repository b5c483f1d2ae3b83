// `mcpx call SERVER TOOL ['JSON' | -]`: a tool called through mcpx_call, so the arguments are checked as
// it checks them (src/cli/client.ts). Exit 1 on an isError result.
import { isObject } from '../protocol/jsonrpc';
import { type Args, UsageError } from './args';
import { shown, textOf, timeoutMeta, withGateway } from './client';
import type { Command } from './command';
import { printableJson, printableLines } from '../kit/printable';
import { out } from './output';

export const call: Command = {
  usage: [
    [
      "call SERVER TOOL ['JSON' | -] [--text] [--timeout 30s] [--connect auto|URL|ssh://HOST] [--profile NAME]",
      'call a tool (arguments as JSON, - for stdin); exit 1',
      'on an isError result, 2 on a protocol error',
    ],
  ],
  flags: ['text', 'timeout', 'connect', 'profile'],
  positional: true,
  run,
};

async function run(a: Args): Promise<void> {
  const [server, tool, json, ...extra] = a.positional;
  if (!server || !tool) throw new UsageError('mcpx call needs a SERVER and a TOOL');
  if (extra.length) throw new UsageError(`mcpx call: unexpected argument ${JSON.stringify(extra[0])}`);
  const raw = json === '-' ? await readStdin() : (json ?? '{}');
  let args: unknown;
  try {
    args = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (e) {
    throw new Error(`the arguments are not JSON: ${(e as Error).message}`);
  }
  if (!isObject(args)) throw new Error('the arguments must be a JSON object');
  const meta = timeoutMeta(a);
  const r = await withGateway(a, (c) =>
    c.request('tools/call', { name: 'mcpx_call', arguments: { server, tool, arguments: args } }, { meta }),
  );
  out(a.text ? printableLines(textOf(r)) : printableJson(shown(r), 2));
  if (r.isError === true) process.exitCode = 1;
}

/** All of stdin, for `mcpx call … -` and `mcpx exec -`. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
