// Guardrails across a reload (docs/gateway.md "Guardrails"): a changed guardrails block applies to the next
// call on every path, in a real gateway over a real fixture upstream, every frame validated per revision.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { parseConfig } from '../../src/config/file';
import { fixtureCommand, gatewayFor } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';

const textOf = (r: Json | undefined): string =>
  ((r?.content as Json[] | undefined) ?? []).map((b) => String(b.text ?? '')).join('');

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('a reload', { timeout: 60_000 }, () => {
  test('replaces the rules: the next call is screened by the new block, the lists fetched again under it', async () => {
    const servers = { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up', '--tainted']) };
    const gw = await gatewayFor(
      servers,
      { 'mcp.passthrough': ['up'] },
      {
        guardrails: { rules: [{ detect: 'secrets', action: 'redact' }] },
      },
    );
    try {
      const c = new HttpClient(gw.url, '2025-11-25');
      await c.initialize();
      const call = async () => (await c.request('tools/call', { name: 'leak_secrets', arguments: {} })).result!;
      const listed = async () => ((await c.request('tools/list')).result!.tools as Json[]).map((t) => t.name);
      assert.match(textOf(await call()), /\[redacted:secrets\/aws\]/);
      assert.ok((await listed()).includes('weather'));
      const next = parseConfig(
        {
          servers,
          guardrails: {
            rules: [
              { detect: 'secrets', action: 'block' },
              { detect: 'injection', on: ['descriptions'], action: 'block' },
            ],
          },
        },
        'reloaded',
        { env: process.env },
      );
      await gw.g.reload(next, gw.g.settings);
      assert.match(textOf(await call()), /mcpx guardrails blocked the result of up\/leak_secrets/);
      assert.ok(!(await listed()).includes('weather'), 'the tainted tool withheld under the new rules');
    } finally {
      await gw.close();
    }
  });
});
