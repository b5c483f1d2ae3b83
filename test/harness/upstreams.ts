// Gateways over fixture upstreams (real processes, real pipes and loopback HTTP), and the check that
// every frame mcpx sent an upstream was valid for that upstream's revision.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { type Listening, listen } from '../../src/app/app';
import { gatewayRoutes } from '../../src/app/routes';
import { parseConfig } from '../../src/config/file';
import { Settings } from '../../src/config/settings';
import { Gateway, type GatewayOptions } from '../../src/gateway/gateway';
import { SERVER_JS } from '../fixtures/upstream/client';
import { assertClientFrame, type Revision } from './schema';
import { until } from './wait';

export { startHttpFixture, killAll } from '../fixtures/upstream/client';

export const fixtureCommand = (args: string[]) => ({ command: process.execPath, args: [SERVER_JS(), ...args] });

export interface TestGateway {
  /** The endpoint that works: the secret in its path (docs/security.md "The endpoint secret"). */
  url: string;
  /** /mcp without the secret. */
  bare: string;
  /** The endpoint secret, for `Authorization: Bearer` (the /v1 API). */
  secret: string;
  g: Gateway;
  dir: string;
  close(): Promise<void>;
}

export async function gatewayFor(
  servers: Record<string, unknown>,
  values: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
  options: Pick<GatewayOptions, 'questionTtlMs' | 'log' | 'auth' | 'person' | 'activity'> = {},
): Promise<TestGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-gw-'));
  const config = parseConfig({ servers, ...extra }, 'test', { env: process.env });
  if (config.issues.length) throw new Error(JSON.stringify(config.issues));
  const settings = new Settings([
    { source: 'flag', values: { 'pool.probeTimeout': '1s', 'pool.startTimeout': '5s', ...values } },
  ]);
  const g = new Gateway(config, settings, { stateDir: dir, ...options });
  const l: Listening = await listen({
    provider: g,
    settings,
    port: 0,
    address: '127.0.0.1',
    routes: gatewayRoutes(g),
    ...(options.log ? { log: options.log } : {}),
  });
  return {
    url: l.endpoint,
    bare: l.url,
    secret: l.secret!,
    g,
    dir,
    close: async () => {
      await l.close();
      await g.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `gatewayFor` for a file that starts several gateways: each is closed after the file's tests (this
 *  registers that `after`; call it before the file's own). */
export function gatewayPool(): (...args: Parameters<typeof gatewayFor>) => Promise<TestGateway> {
  const open: TestGateway[] = [];
  after(async () => {
    for (const g of open) await g.close();
  });
  return async (...args) => {
    const gw = await gatewayFor(...args);
    open.push(gw);
    return gw;
  };
}

interface RecordLine {
  dir: 'in' | 'out';
  frame: Record<string, unknown>;
}

/** Every frame a fixture received (what mcpx sent it), validated against `rev`. Returns them. */
export function checkRecorded(file: string, rev: Revision): Array<Record<string, unknown>> {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RecordLine);
  const asked = new Map<unknown, string>();
  for (const l of lines)
    if (l.dir === 'out' && 'method' in l.frame && 'id' in l.frame) asked.set(l.frame.id, String(l.frame.method));
  const received = lines.filter((l) => l.dir === 'in').map((l) => l.frame);
  for (const f of received) {
    // The probe's server/discover is a 2026-07-28 request by design: it is how mcpx learns the era.
    if (f.method === 'server/discover') {
      assertClientFrame('2026-07-28', f);
      continue;
    }
    // initialize is spelled for the revision it asks for; the server may then counter-offer an older one.
    const params = f.params as { protocolVersion?: Revision } | undefined;
    const as = f.method === 'initialize' && params?.protocolVersion ? params.protocolVersion : rev;
    assertClientFrame(as, f, 'id' in f && !('method' in f) ? asked.get(f.id) : undefined);
  }
  return received;
}

/** The frames a fixture started with `--record file` has received so far: none before the file exists, and
 *  a line still being written is not read. */
export function receivedBy(file: string): Array<Record<string, unknown>> {
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, 'utf8').split('\n').slice(0, -1);
  return lines.map((l) => JSON.parse(l) as RecordLine).flatMap((l) => (l.dir === 'in' ? [l.frame] : []));
}

/** Waits until the fixture recording to `file` has received its `nth` (default first) `tools/call` of `tool`:
 *  the call is in flight there, which is what a test about a call in flight waits for. */
export function untilCalled(file: string, tool: string, nth = 1): Promise<true> {
  const calls = () =>
    receivedBy(file).filter((f) => f.method === 'tools/call' && (f.params as { name?: unknown })?.name === tool);
  return until(() => calls().length >= nth, { what: `the upstream to receive tools/call ${tool} (#${nth})` });
}
