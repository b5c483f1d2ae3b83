// The authorization extensions' parts checked before any grant (docs/gateway.md "Signing in to upstreams"):
// auth.dpop refused where the authorization server offers no DPoP, and the identity token sources (a file,
// a variable, a command), each failure naming its source and never what it printed. The grants themselves:
// oauth-extensions.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Authorizer } from '../../src/upstream/auth/authorizer';
import { readToken } from '../../src/upstream/auth/sources';
import { MemorySecretStore } from '../../src/upstream/auth/store';
import { startOAuthFixture } from '../harness/oauth';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-oauthx-sources-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('auth.dpop', () => {
  test('dpop: true where the authorization server offers no DPoP is refused before anything is asked', async () => {
    const plain = await startOAuthFixture({ consent: 'auto' });
    try {
      const opened: string[] = [];
      const a = new Authorizer({
        server: 'plain',
        url: plain.mcp,
        config: { dpop: true },
        store: new MemorySecretStore(),
        person: { available: () => true, open: async (r) => void opened.push(r.url.href) },
        log: () => undefined,
        signInTimeoutMs: 5000,
        stepUpRetries: 1,
        fixHint: 'sign in',
      });
      await assert.rejects(
        a.signIn(),
        /auth\.dpop is set, but the authorization server 127\.0\.0\.1:\d+ offers no DPoP with ES256 \(dpop_signing_alg_values_supported: absent\)/,
      );
      assert.deepEqual(opened, []);
    } finally {
      await plain.stop();
    }
  });
});

describe('identity token sources', () => {
  const node = (code: string) => ({ command: process.execPath, args: ['-e', code] });
  const refused = (source: Parameters<typeof readToken>[0]) =>
    readToken(source, 'the token').then(
      () => assert.fail('read'),
      (e: Error) => e.message,
    );

  test('a file, a variable and a command each give their token, trimmed', async () => {
    const f = join(dir, 'token');
    writeFileSync(f, 'eyJ.file.token\n');
    assert.equal(await readToken({ file: f }, 'the token'), 'eyJ.file.token');
    process.env.MCPX_TEST_TOKEN = ' eyJ.env.token ';
    assert.equal(await readToken({ env: 'MCPX_TEST_TOKEN' }, 'the token'), 'eyJ.env.token');
    assert.equal(await readToken(node('console.log("eyJ.cmd.token")'), 'the token'), 'eyJ.cmd.token');
  });

  test('each failure names the source and never what it printed', async () => {
    assert.match(
      await refused({ file: join(dir, 'absent') }),
      /^the token could not be read from the file .*absent: ENOENT/,
    );
    assert.equal(
      await refused({ env: 'MCPX_TEST_UNSET' }),
      'the token: the environment variable MCPX_TEST_UNSET is empty or unset',
    );
    const failed = await refused(node('console.log("eyJ.secret.printed"); process.exit(3)'));
    assert.equal(failed, `the token could not be read from the command ${process.execPath}: it exited with status 3`);
    const two = await refused(node('console.log("eyJ.one\\neyJ.two")'));
    assert.match(two, /does not hold one token/);
    assert.doesNotMatch(two, /eyJ/);
    assert.match(
      await refused({ command: 'mcpx-no-such-command' }),
      /the command mcpx-no-such-command: not found on PATH/,
    );
  });
});
