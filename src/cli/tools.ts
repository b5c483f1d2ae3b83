// `mcpx tools [SERVER]`: the gateway's tools, or one server's through mcpx_tools (src/cli/client.ts).
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { type Args, UsageError } from './args';
import { textOf, withGateway } from './client';
import type { Command } from './command';
import { out, printable } from './output';

export const tools: Command = {
  usage: [['tools [SERVER] [--connect auto|URL]', "the gateway's tools, or one server's"]],
  flags: ['connect'],
  positional: true,
  run,
};

async function run(a: Args): Promise<void> {
  const [server, ...extra] = a.positional;
  if (extra.length) throw new UsageError(`mcpx tools: unexpected argument ${JSON.stringify(extra[0])}`);
  await withGateway(a, async (c) => {
    if (server === undefined) {
      const tools = await c.listAll('tools/list', 'tools');
      out(table(tools.map((t) => [String(t.name), summary(t)])));
      return;
    }
    const r = await c.request('tools/call', { name: 'mcpx_tools', arguments: { server } });
    if (r.isError === true) throw new Error(textOf(r) || `mcpx_tools failed for ${server}`);
    const s = isObject(r.structuredContent) ? r.structuredContent : {};
    const tools = Array.isArray(s.tools) ? s.tools.filter(isObject) : [];
    for (const e of Array.isArray(s.errors) ? s.errors.filter(isObject) : []) {
      process.stderr.write(`mcpx: ${String(e.server)}: ${String(e.error)}\n`);
      process.exitCode = 1;
    }
    if (tools.length === 0) return void out(`${server} lists no tools`);
    out(table(tools.map((t) => [String(t.tool), summary(t)])));
  });
}

function summary(t: JsonObject): string {
  const s = typeof t.title === 'string' ? t.title : typeof t.description === 'string' ? t.description : '';
  return printable(s.split('\n')[0] ?? '');
}

function table(rows: string[][]): string {
  const width = Math.max(0, ...rows.map((r) => r[0]!.length));
  return rows.map(([name, what]) => `${printable(name!).padEnd(width)}  ${what}`.trimEnd()).join('\n');
}
