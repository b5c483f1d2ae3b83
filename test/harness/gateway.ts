// Start an in-process server on a free loopback port with the test provider; every test closes it.
import { listen, type Listening } from '../../src/app/app';
import { Settings } from '../../src/config/settings';
import type { Provider } from '../../src/server/provider';
import { testProvider, type TestProviderOptions } from '../fixtures/provider';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

export async function startTestServer(
  values: Record<string, unknown> = {},
  o: TestProviderOptions & { provider?: Provider } = {},
): Promise<Listening & { bare: string }> {
  const settings = new Settings([{ source: 'flag', values }]);
  const l = await listen({ provider: o.provider ?? testProvider(o), settings, port: 0, address: '127.0.0.1' });
  // The endpoint secret is on in every test (docs/security.md "The endpoint secret"): `url` is the
  // endpoint that works, the secret in its path; `bare` is /mcp without it.
  return { ...l, url: l.endpoint, bare: l.url };
}

/** Repo root: the nearest folder above this bundle with a package.json. */
export function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${__dirname}`);
    dir = up;
  }
  return dir;
}

/** Path of a built fixture (build/test/fixtures/NAME.js). */
export function fixture(name: string): string {
  return join(repoRoot(), 'build', 'test', 'fixtures', `${name}.js`);
}

/** The built `mcpx` command (dist/cli.js). */
export function cliJs(): string {
  return join(repoRoot(), 'dist', 'cli.js');
}
