// The editor's answer to a change of configuration (src/vscode/host/applyChange.ts), in plain Node over a
// real gateway: a changed server list is applied in place — the same gateway, the same session, no
// restart —; a changed port restarts; an invalid configuration is shown to the person and the running
// one kept.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { parseConfig } from '../../src/config/file';
import { Settings } from '../../src/config/settings';
import { applyChange } from '../../src/vscode/host/applyChange';
import { fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';

after(() => killAll());

const A = fixtureCommand(['--rev', '2025-11-25', '--name', 'a']);
const B = fixtureCommand(['--rev', '2025-11-25', '--name', 'b']);
const text = (r: Json | undefined) => String(((r?.content as Json[]) ?? [])[0]?.text ?? '');

test('a config change reloads in place, a port change restarts, an invalid config is shown and refused', async () => {
  const values = { 'pool.probeTimeout': '1s', 'pool.startTimeout': '5s' };
  const gw = await gatewayFor({ a: A }, values);
  const restarts: number[] = [];
  const errors: string[] = [];
  const deps = {
    restart: async () => void restarts.push(1),
    log: () => undefined,
    showError: (m: string) => void errors.push(m),
  };
  const config = (servers: Json) => parseConfig({ servers }, '.vscode/mcp.json', { env: process.env });
  const settings = (v: Json = {}) => new Settings([{ source: 'flag', values: { ...values, ...v } }]);
  try {
    const c = new HttpClient(gw.url, '2025-11-25');
    await c.initialize();
    const call = (server: string, t: string) =>
      c.request('tools/call', { name: 'mcpx_call', arguments: { server, tool: 'echo', arguments: { text: t } } });
    assert.equal(text((await call('a', 'before')).result), 'before');

    assert.equal(await applyChange(gw.g, config({ a: A, b: B }), settings(), deps), 'reloaded');
    assert.deepEqual(restarts, [], 'no restart');
    assert.equal(text((await call('b', 'added')).result), 'added', 'the same session reaches the added server');

    assert.equal(await applyChange(gw.g, config({ a: A, b: B, c: { type: 'stdio' } }), settings(), deps), 'refused');
    assert.equal(errors.length, 1);
    assert.match(errors[0]!, /^mcpx: the configuration \.vscode\/mcp\.json was not applied .*servers\.c/);
    assert.deepEqual(
      gw.g.servers().map((s) => s.name),
      ['a', 'b'],
      'the running configuration is kept',
    );

    assert.equal(await applyChange(gw.g, config({ a: A }), settings({ port: 1 }), deps), 'restarted');
    assert.deepEqual(restarts, [1], 'a new listener: a restart');
    assert.deepEqual(
      gw.g.servers().map((s) => s.name),
      ['a', 'b'],
      'the restart, not the reload, applies it',
    );
    assert.equal(text((await call('a', 'after')).result), 'after');
  } finally {
    await gw.close();
  }
});
