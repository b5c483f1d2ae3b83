// What the mcpx_exec tests start (docs/exec.md): a gateway whose script children's pids are recorded, a
// legacy client of it, and a script run through mcpx_exec.
import { HttpPeer } from '../fixtures/upstream/client';
import { type TestGateway, fixtureCommand, gatewayFor } from './upstreams';
import type { Json } from './wire';

/** Two fixture upstreams of both eras, the second's name not a JavaScript identifier. */
export const EXEC_SERVERS = {
  a: fixtureCommand(['--rev', '2025-11-25', '--name', 'a']),
  'b-2': fixtureCommand(['--rev', '2026-07-28', '--name', 'b']),
};

export type ExecGateway = TestGateway & { pids: number[] };

/** A gateway over `servers` whose exec children's pids are recorded as they start. */
export async function execGateway(
  servers: Record<string, unknown>,
  values: Record<string, unknown> = {},
  o: { questionTtlMs?: number } = {},
): Promise<ExecGateway> {
  const pids: number[] = [];
  const gw = await gatewayFor(servers, values, {}, o);
  (gw.g.opts as { execStarted?: (pid: number) => void }).execStarted = (pid) => pids.push(pid);
  return Object.assign(gw, { pids });
}

/** A legacy HTTP client of the gateway that declared `capabilities`. */
export async function execClient(
  gw: TestGateway,
  capabilities: Json = {},
  rev: '2025-06-18' | '2025-11-25' = '2025-11-25',
): Promise<HttpPeer> {
  const peer = new HttpPeer(rev, gw.url);
  await peer.initialize(capabilities);
  return peer;
}

/** `script` run through mcpx_exec (with `extra` arguments). */
export const exec = (peer: HttpPeer, script: string, extra: Json = {}) =>
  peer.request('tools/call', { name: 'mcpx_exec', arguments: { script, ...extra } });

/** The first text of a call's result, or its error. */
export const textOf = (r: Json): string =>
  String(((((r.result as Json)?.content as Json[]) ?? [])[0] as Json)?.text ?? JSON.stringify(r.error));
/** A call's structured result. */
export const structured = (r: Json): Json => (r.result as Json).structuredContent as Json;
