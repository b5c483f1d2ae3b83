// What the HTTP transport asks of the eras instead of testing one (src/transport/post.ts, pushStream.ts,
// respond.ts; ARCHITECTURE.md "Adding a revision"), for every revision: which path a POST takes, whether a
// GET opens a push stream, whether a successful initialize mints a session.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { codecFor, negotiatedAtInitialize, pushStreamFor, statedPerRequest } from '../../src/protocol/eras';
import { REVISIONS } from '../../src/protocol/revisions';

const LEGACY_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];

describe('the eras as the HTTP transport reads them', () => {
  test('a revision negotiated at initialize: the session path, a session minted, a GET push stream', () => {
    for (const rev of LEGACY_REVISIONS) {
      assert.ok((REVISIONS as readonly string[]).includes(rev), rev);
      // post.ts: a request in such a revision is read in the session path, never the per-request one.
      assert.equal(negotiatedAtInitialize(rev), true, rev);
      assert.equal(statedPerRequest(rev), false, rev);
      // respond.ts: a successful initialize mints Mcp-Session-Id (the server's outcome says so).
      assert.equal(codecFor(rev as (typeof REVISIONS)[number]).opensSession('initialize'), true, rev);
      // pushStream.ts: GET with the session's id opens its stream.
      assert.equal(pushStreamFor(rev), true, rev);
    }
  });

  test('2026-07-28, stated per request: no sessions, no push stream', () => {
    assert.equal(statedPerRequest('2026-07-28'), true);
    assert.equal(negotiatedAtInitialize('2026-07-28'), false);
    assert.equal(codecFor('2026-07-28').opensSession('initialize'), false);
    assert.equal(pushStreamFor('2026-07-28'), false);
  });

  test('every revision mcpx serves is one of the two; anything else is neither', () => {
    assert.deepEqual(REVISIONS.filter(negotiatedAtInitialize), LEGACY_REVISIONS, 'the session path');
    assert.deepEqual(REVISIONS.filter(statedPerRequest), ['2026-07-28'], 'the per-request path');
    assert.deepEqual(
      REVISIONS.filter((r) => pushStreamFor(r)),
      LEGACY_REVISIONS,
      'the revisions a GET opens a push stream for',
    );
    for (const v of ['2099-01-01', undefined, 7]) {
      assert.equal(negotiatedAtInitialize(v), false);
      assert.equal(statedPerRequest(v), false);
    }
    // A GET naming no revision, or one mcpx does not know, is read as a legacy session's.
    assert.equal(pushStreamFor(undefined), true);
    assert.equal(pushStreamFor('2099-01-01'), true);
  });
});
