// `mcpx read URI`: resources/read at the gateway (src/cli/client.ts), e.g. mcpx://SERVER/….
import { isObject } from '../protocol/jsonrpc';
import { type Args, UsageError } from './args';
import { shown, timeoutMeta, withGateway } from './client';
import type { Command } from './command';
import { printable, printableJson, printableLines } from '../kit/printable';
import { out } from './output';

export const read: Command = {
  usage: [
    [
      'read URI [--text] [--timeout 30s] [--connect auto|URL|ssh://HOST] [--profile NAME]',
      'read a resource, e.g. mcpx://SERVER/...',
    ],
  ],
  flags: ['text', 'timeout', 'connect', 'profile'],
  positional: true,
  run,
};

async function run(a: Args): Promise<void> {
  const [uri, ...extra] = a.positional;
  if (!uri) throw new UsageError('mcpx read needs a URI');
  if (extra.length) throw new UsageError(`mcpx read: unexpected argument ${JSON.stringify(extra[0])}`);
  const meta = timeoutMeta(a);
  const r = await withGateway(a, (c) => c.request('resources/read', { uri }, { meta }));
  if (!a.text) return void out(printableJson(shown(r), 2));
  const contents = Array.isArray(r.contents) ? r.contents.filter(isObject) : [];
  for (const c of contents) {
    if (typeof c.text === 'string') out(printableLines(c.text));
    else
      process.stderr.write(
        `mcpx: ${printable(`${String(c.uri)}: ${String(c.mimeType ?? 'binary')}`)} content, not text\n`,
      );
  }
}
