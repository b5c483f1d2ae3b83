// config/discovery.ts: what the stdio shim reads of the config file without zod (its `settings`, variables
// substituted) is what the config file's loader (config/file.ts) reads, file by file.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { configSettings } from '../../src/config/discovery';
import { loadConfig } from '../../src/config/file';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-shim-discovery-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test("the shim's reading of the config file's settings is the loader's, for every shape of file", () => {
  const env = { XDG_CONFIG_HOME: dir, IDLE: '45s' };
  const ctx = { env, workspaceFolder: '/work/here' };
  mkdirSync(join(dir, 'mcpx'));
  const file = join(dir, 'mcpx', 'mcp.json');
  const cases: Array<[string, string | undefined, Record<string, unknown>]> = [
    ['no file', undefined, {}],
    [
      'settings with variables',
      JSON.stringify({
        servers: { a: { command: 'x' } },
        settings: { 'shim.daemonIdleExit': '${env:IDLE}', 'x.folder': '${workspaceFolder}/y', n: 3 },
      }),
      { 'shim.daemonIdleExit': '45s', 'x.folder': '/work/here/y', n: 3 },
    ],
    ['not JSON', '{ nope', {}],
    ['settings not an object', JSON.stringify({ settings: ['a'] }), {}],
    ['not an object', '[1]', {}],
    ['servers the loader refuses', JSON.stringify({ servers: 7, settings: { a: 1 } }), { a: 1 }],
  ];
  for (const [what, text, want] of cases) {
    rmSync(file, { force: true });
    if (text !== undefined) writeFileSync(file, text);
    assert.deepEqual(configSettings(ctx), want, what);
    assert.deepEqual(configSettings(ctx), loadConfig(undefined, ctx).settings, what);
  }
});
