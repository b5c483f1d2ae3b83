// The pool tests' kit (pool.test.ts, pool-instances.test.ts): the state directory, the fixture upstream,
// and a client calling through mcpx_call.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { fixtureCommand, killAll } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';

export const dir = mkdtempSync(join(tmpdir(), 'mcpx-pool-'));
after(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

export const fx = (...args: string[]) => fixtureCommand(['--rev', '2025-11-25', '--name', 'up', ...args]);
export const text = (r: Json | undefined) => String(((r?.content as Json[]) ?? [])[0]?.text ?? '');

export async function client(url: string, session?: string): Promise<HttpClient> {
  const c = new HttpClient(url, '2025-11-25');
  await c.initialize();
  if (session) c.opts.headers = { ...c.opts.headers };
  return c;
}
export const call = (c: HttpClient, server: string, tool: string, args: Json = {}, extra: Json = {}, meta: Json = {}) =>
  c.request('tools/call', { name: 'mcpx_call', arguments: { server, tool, arguments: args, ...extra } }, { meta });
