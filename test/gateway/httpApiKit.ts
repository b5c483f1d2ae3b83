// The HTTP API tests' kit (http-api.test.ts, http-api-calls.test.ts): a gateway over a fixture upstream that
// records what it received, started for the file, and requests to its API with the endpoint secret.
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { type TestGateway, fixtureCommand, gatewayFor, startHttpFixture } from '../harness/upstreams';

export type Json = Record<string, unknown>;

export let gw: TestGateway;
export let web: ChildProcess;
export const logs: string[] = [];
export const record = join(tmpdir(), `mcpx-http-api-${process.pid}.jsonl`);
export const base = () => gw.bare.replace(/\/mcp$/, '');
export const auth = () => ({ Authorization: `Bearer ${gw.secret}` });

before(async () => {
  // A 2026-07-28 upstream over Streamable HTTP beside the stdio one.
  const h = await startHttpFixture(['--rev', '2026-07-28', '--transport', 'http', '--name', 'web']);
  web = h.child;
  gw = await gatewayFor(
    { fx: fixtureCommand(['--rev', '2025-11-25', '--record', record]), web: { type: 'http', url: h.url } },
    { 'transport.maxBodyBytes': 64 * 1024, 'transport.maxInflightPerIdentity': 1 },
    {
      permissions: { rules: [{ server: 'fx', tool: 'fail', action: 'deny' }] },
      // A profile's API is the same paths under /v1/profiles/<name> (docs/gateway.md "The HTTP API").
      profiles: { narrow: { servers: { fx: { include: ['echo'] } }, mode: 'aggregated' } },
    },
    { log: (l) => logs.push(l) },
  );
});
after(async () => {
  await gw?.close();
  web?.kill();
  rmSync(record, { force: true });
});

/** The messages of `method` the fixture received. */
export const received = (method: string) =>
  readFileSync(record, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { dir: string; frame: Json })
    .filter((l) => l.dir === 'in' && l.frame.method === method);
/** The tools/call requests the fixture received, by tool name. */
export const upstreamCalls = (tool: string) =>
  received('tools/call').filter((l) => (l.frame.params as Json).name === tool);

export const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${base()}${path}`, {
    method: 'POST',
    headers: { ...auth(), 'Content-Type': 'application/json', ...headers },
    body,
  });

export async function validate(doc: unknown): Promise<{ valid: boolean; errors?: unknown; resolved: () => unknown }> {
  const { Validator } = await import('@seriousme/openapi-schema-validator');
  const v = new Validator();
  const res = await v.validate(doc as never);
  return { ...res, resolved: () => v.resolveRefs() };
}
