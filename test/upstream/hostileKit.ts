// The hostile-upstream tests' kit (hostile-upstreams.test.ts, hostile-upstreams-requests.test.ts): the state
// directory, each call's record file, and a standalone gateway in front of hostile servers.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { repoRoot } from '../harness/gateway';
import { killHostiles } from '../harness/hostile';
import { killAll } from '../harness/upstreams';
import { type HttpClient, type Json, StdioClient } from '../harness/wire';

export const dir = mkdtempSync(join(tmpdir(), 'mcpx-hostile-'));
after(() => {
  killAll();
  killHostiles();
  rmSync(dir, { recursive: true, force: true });
});

export const LEGACY = '2025-11-25';
export const MODERN = '2026-07-28';
export const text = (r: Json | undefined) => String(((r?.content as Json[]) ?? [])[0]?.text ?? '');
export const call = (c: HttpClient, server: string, tool: string, args: Json = {}, meta: Json = {}) =>
  c.request('tools/call', { name: 'mcpx_call', arguments: { server, tool, arguments: args } }, { meta });
export let n = 0;
export const record = () => join(dir, `r${++n}.jsonl`);

/** `mcpx serve --transport stdio --standalone` over `servers`, as a stdio client of `rev` sees it. */
export function standalone(
  servers: Record<string, unknown>,
  settings: Json = {},
  capabilities: Json = {},
): StdioClient {
  const config = join(dir, `c${++n}.json`);
  writeFileSync(config, JSON.stringify({ servers, settings }));
  const cli = join(repoRoot(), 'dist', 'cli.js');
  return new StdioClient(
    process.execPath,
    [cli, 'serve', '--transport', 'stdio', '--standalone', '--config', config],
    LEGACY,
    capabilities,
  );
}
