// The authorization extensions' configuration (docs/gateway.md "Signing in to upstreams"): each grant refused
// without what it needs, and what belongs to another grant refused, by its path.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseServer } from '../../src/config/servers';

describe('configuration', () => {
  const issues = (auth: unknown) =>
    parseServer('x', { type: 'http', url: 'https://mcp.example/mcp', auth }, 'servers').issues.map(
      (i) => `${i.path}: ${i.message}`,
    );

  test('each grant is refused without what it needs, and what belongs to another grant, by its path', () => {
    assert.deepEqual(issues({ type: 'oauth', grant: 'jwt_bearer' }), [
      'servers.x.auth.assertion: grant jwt_bearer needs assertion',
    ]);
    assert.deepEqual(issues({ type: 'oauth', assertion: { env: 'T' } }), [
      'servers.x.auth.assertion: assertion applies only to grant jwt_bearer',
    ]);
    assert.deepEqual(
      issues({ type: 'oauth', grant: 'enterprise', enterprise: { issuer: 'https://idp.example', clientId: 'c' } }),
      ['servers.x.auth.clientId: grant enterprise needs clientId'],
    );
    assert.deepEqual(issues({ type: 'oauth', grant: 'enterprise', clientId: 'c' }), [
      'servers.x.auth.enterprise: grant enterprise needs enterprise',
    ]);
    assert.match(
      issues({ type: 'oauth', grant: 'jwt_bearer', assertion: { file: 'a', env: 'B' } }).join(),
      /^servers\.x\.auth\.assertion/,
    );
    assert.match(issues({ type: 'oauth', dpop: 'yes' }).join(), /^servers\.x\.auth\.dpop: expected boolean/);
    assert.match(
      issues({
        type: 'oauth',
        grant: 'enterprise',
        clientId: 'c',
        enterprise: { issuer: 'not a url', clientId: 'i' },
      }).join(),
      /^servers\.x\.auth\.enterprise\.issuer: invalid url/,
    );
    assert.deepEqual(
      issues({
        type: 'oauth',
        grant: 'jwt_bearer',
        assertion: { command: 'gcloud', args: ['auth', 'print-identity-token'] },
      }),
      [],
    );
  });
});
