// The codec members the HTTP transport asks instead of testing the era (src/transport/post.ts,
// pushStream.ts, respond.ts; ARCHITECTURE.md "Adding a revision"), for every revision: which path a POST
// takes, whether a GET opens a push stream, whether a successful initialize mints a session, and what
// the era's headers and bodies may hold.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { codecFor } from '../src/protocol/eras';
import { REVISIONS } from '../src/protocol/revisions';

const LEGACY_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];

describe('the codec as the HTTP transport reads it', () => {
  test('a revision negotiated at initialize: sessions, a GET push stream, batches and client responses; no headers required', () => {
    for (const rev of LEGACY_REVISIONS) {
      assert.ok((REVISIONS as readonly string[]).includes(rev), rev);
      const c = codecFor(rev as (typeof REVISIONS)[number]);
      // post.ts: a request in such a revision is read in the session path, never the per-request one.
      assert.equal(c.handshake, 'initialize', rev);
      // respond.ts: a successful initialize mints Mcp-Session-Id.
      assert.equal(c.sessions, true, rev);
      // pushStream.ts: GET with the session's id opens its stream.
      assert.deepEqual(c.http, { headersRequired: false, batches: true, clientResponses: true, pushStream: true }, rev);
    }
  });

  test('2026-07-28, stated per request: no sessions, no push stream, no batches, no client responses; headers required', () => {
    const c = codecFor('2026-07-28');
    assert.equal(c.handshake, 'discover');
    assert.equal(c.sessions, false);
    assert.deepEqual(c.http, { headersRequired: true, batches: false, clientResponses: false, pushStream: false });
  });

  test('every revision mcpx serves is one of the two', () => {
    assert.deepEqual(
      REVISIONS.filter((r) => codecFor(r).handshake === 'initialize'),
      LEGACY_REVISIONS,
      'the revisions a POST reads in the session path',
    );
    assert.deepEqual(
      REVISIONS.filter((r) => codecFor(r).http.pushStream),
      LEGACY_REVISIONS,
      'the revisions a GET opens a push stream for',
    );
  });
});
