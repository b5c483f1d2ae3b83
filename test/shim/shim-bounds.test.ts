// The stdio shim's own bounds (docs/security.md "Bounds"), each the setting the gateway holds its side
// to: a client's requests in flight at limits.inflight (beyond, -32603 naming it, as the gateway refuses
// rather than queues), and an answer read from the gateway up to limits.responseBytes — the bound the
// gateway writes within, not an HTTP upstream's transport.maxBodyBytes — so what passes over HTTP passes
// through the shim.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cliJs } from '../harness/gateway';
import { type Daemon, startDaemon } from '../harness/paths';
import { type Json, StdioClient } from '../harness/wire';

const BIG = 16 * 1024 * 1024;
const textOf = (r: unknown) =>
  (((r as Json | undefined)?.content as Json[] | undefined) ?? []).map((b) => String(b.text ?? '')).join('');

let daemon: Daemon;
const clients: StdioClient[] = [];
before(async () => {
  // A gateway that takes (and reads from its upstream) messages past the defaults.
  daemon = await startDaemon({ settings: { 'transport.maxBodyBytes': BIG, 'transport.maxLineBytes': BIG } });
});
after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await daemon?.stop();
});

function shim(env: Record<string, string>): StdioClient {
  const args = [cliJs(), 'serve', '--transport', 'stdio', '--connect', daemon.endpoint];
  const c = new StdioClient(process.execPath, args, '2025-11-25', {}, { ...daemon.env, ...env });
  clients.push(c);
  return c;
}

describe('the stdio shim’s bounds', () => {
  test('requests in flight: at limits.inflight the next is refused naming the setting; the others run on', async () => {
    const c = shim({ MCPX_LIMITS_INFLIGHT: '16' });
    await c.initialize();
    const calls = Array.from({ length: 17 }, (_, n) =>
      c.frame('tools/call', { name: 'slow', arguments: { ms: 1500 + n } }),
    );
    const answers = await c.pipeline(calls);
    const refused = answers.pop();
    for (const [n, r] of answers.entries()) assert.equal(textOf(r.result), `slept ${1500 + n}ms`, JSON.stringify(r));
    const e = refused!.error as Json | undefined;
    assert.equal(e?.code, -32603, JSON.stringify(refused));
    assert.match(String(e?.message), /limits\.inflight \(16\)/);
    const again = await c.request('tools/call', { name: 'echo', arguments: { text: 'room again' } });
    assert.equal(textOf(again.result), 'room again');
  });

  test('an answer of 5 MB (past transport.maxBodyBytes, within limits.responseBytes) reaches the client', async () => {
    const c = shim({ MCPX_TRANSPORT_MAX_LINE_BYTES: String(BIG) });
    await c.initialize();
    const text = 'x'.repeat(5 * 1024 * 1024);
    const r = await c.request('tools/call', { name: 'echo', arguments: { text } });
    assert.equal(textOf(r.result).length, text.length, JSON.stringify(r.error));
  });
});
