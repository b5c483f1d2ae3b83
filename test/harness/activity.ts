// Activity records as the call gate makes them (src/gateway/activity/record.ts), for the log's tests.
import { createHash } from 'node:crypto';
import type { ActivityRecord } from '../../src/gateway/activity/record';
import type { JsonObject } from '../../src/protocol/jsonrpc';

/** A record as the call gate makes one. */
export function record(i: number, o: Partial<ActivityRecord> = {}): ActivityRecord {
  const args: JsonObject = o.arguments ?? { i };
  return {
    time: new Date(Date.now() - 1000 + (i % 1000)).toISOString(),
    kind: 'tool',
    client: {
      name: i % 2 ? 'agent-a' : 'agent-b',
      version: '1',
      identity: `client:${i % 2}`,
      revision: '2025-11-25',
      transport: 'http',
    },
    path: 'mcpx_call',
    server: i % 3 ? 'up' : 'other',
    target: `tool-${i}`,
    argsDigest: createHash('sha256').update(JSON.stringify(args)).digest('hex'),
    arguments: args,
    decision: { action: 'allow', rule: 'default' },
    outcome: { status: 'ok' },
    durationMs: 3,
    bytesIn: JSON.stringify(args).length,
    bytesOut: 20,
    result: { content: [{ type: 'text', text: `result ${i}` }] },
    ...o,
  };
}
