// The Dockerfile (docs/team.md "Deployment"), read as text: no docker can build here, so what can be
// checked without one is: both stages on Node 20, the lockfile installed with `npm ci`, every file it
// copies from the build context there, the replica running as a user that is not root, `mcpx daemon`
// through dist/cli.js on the port it exposes and binds beyond loopback, a health check on /ready, and no
// secret baked in (the store URL and key come from the environment at run time).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from './harness/gateway';

const root = repoRoot();
const text = readFileSync(join(root, 'Dockerfile'), 'utf8');
/** Instructions, continuation lines joined, comments dropped. */
const lines = text
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const of = (op: string) => lines.filter((l) => l.startsWith(`${op} `));

test('two stages on Node 20; the lockfile installed with npm ci; the bundles built', () => {
  const froms = of('FROM');
  assert.equal(froms.length, 2);
  for (const f of froms) assert.match(f, /^FROM node:20[-\w.]*( AS \w+)?$/);
  assert.ok(of('RUN').some((r) => /npm ci\b/.test(r)));
  assert.ok(of('RUN').some((r) => /node esbuild\.mjs/.test(r)));
});

test('every file copied from the build context exists; the final stage copies only what the build made', () => {
  for (const c of of('COPY').filter((l) => !l.includes('--from='))) {
    const parts = c.split(/\s+/).slice(1, -1);
    for (const p of parts) if (p !== '.') assert.ok(existsSync(join(root, p)), `${p} (${c})`);
  }
  const final = text.slice(text.lastIndexOf('\nFROM '));
  assert.ok(/COPY --from=build \/src\/dist\//.test(final));
});

test('mcpx daemon as a user that is not root, on the port it exposes, beyond loopback, checked on /ready', () => {
  const user = of('USER').at(-1);
  assert.ok(user && !/\b(root|0)$/.test(user), 'a user that is not root');
  const port = /MCPX_PORT=(\d+)/.exec(text)?.[1];
  assert.equal(of('EXPOSE')[0], `EXPOSE ${port}`);
  assert.match(text, /MCPX_ADDRESS=0\.0\.0\.0/);
  assert.match(of('ENTRYPOINT')[0]!, /"node", "\/opt\/mcpx\/dist\/cli\.js"/);
  assert.match(of('CMD').at(-1)!, /"daemon"/);
  assert.match(of('HEALTHCHECK')[0]!, new RegExp(`127\\.0\\.0\\.1:${port}/ready`));
});

test('no secret in the image: the store URL and key are not set in it', () => {
  for (const l of of('ENV').concat(of('ARG'))) assert.doesNotMatch(l, /MCPX_STORE_(URL|KEY)|PASSWORD|SECRET|TOKEN/i, l);
  assert.ok(existsSync(join(root, '.dockerignore')));
  assert.match(readFileSync(join(root, '.dockerignore'), 'utf8'), /^node_modules$/m);
});
