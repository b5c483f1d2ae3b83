// `mcpx tools [SERVER]`: the tools a person can call through the gateway (mcpx_tools: each server's
// allowed tools), every server's grouped under its name, or one server's (src/cli/client.ts).
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { type Args, UsageError } from './args';
import { textOf, withGateway } from './client';
import type { Command } from './command';
import { printable } from '../kit/printable';
import { out, table } from './output';

export const tools: Command = {
  usage: [
    [
      'tools [SERVER] [--connect auto|URL|ssh://HOST] [--profile NAME]',
      "every server's tools, grouped by server, or one",
      "server's (the names mcpx call takes)",
    ],
  ],
  flags: ['connect', 'profile'],
  positional: true,
  run,
};

async function run(a: Args): Promise<void> {
  const [server, ...extra] = a.positional;
  if (extra.length) throw new UsageError(`mcpx tools: unexpected argument ${JSON.stringify(extra[0])}`);
  await withGateway(a, async (c) => {
    const r = await c.request('tools/call', { name: 'mcpx_tools', arguments: server === undefined ? {} : { server } });
    if (r.isError === true) throw new Error(textOf(r) || `mcpx_tools failed${server ? ` for ${server}` : ''}`);
    const s = isObject(r.structuredContent) ? r.structuredContent : {};
    const found = Array.isArray(s.tools) ? s.tools.filter(isObject) : [];
    // A server that could not list its tools is named, and the exit status says something is missing.
    for (const e of Array.isArray(s.errors) ? s.errors.filter(isObject) : []) {
      process.stderr.write(`mcpx: ${printable(String(e.server))}: ${printable(String(e.error))}\n`);
      process.exitCode = 1;
    }
    if (server !== undefined) {
      if (found.length === 0) return void out(`${printable(server)} lists no tools`);
      return void out(rows(found));
    }
    const byServer = new Map<string, JsonObject[]>();
    for (const t of found) byServer.set(String(t.server), [...(byServer.get(String(t.server)) ?? []), t]);
    if (byServer.size === 0) return void out('no server lists a tool');
    const groups = [...byServer].sort(([x], [y]) => x.localeCompare(y));
    out(groups.map(([name, ts]) => `${printable(name)}\n${indent(rows(ts))}`).join('\n\n'));
  });
}

function summary(t: JsonObject): string {
  const s = typeof t.title === 'string' ? t.title : typeof t.description === 'string' ? t.description : '';
  return printable(s.split('\n')[0] ?? '');
}

/** A server's tools, one line each: the name `mcpx call` takes, and its title. */
const rows = (ts: JsonObject[]): string => table(ts.map((t) => [String(t.tool), summary(t)])).trimEnd();

const indent = (text: string) =>
  text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
