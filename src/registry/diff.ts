// What `mcpx update` shows before it moves a server to another version: the two server.json documents as
// stable pretty JSON (keys sorted) and their unified diff.
import { canonicalJson } from '../kit/canonical';
import { unifiedDiff } from '../kit/diff';
import type { ServerJson } from './types';

const pretty = (s: ServerJson | undefined) => (s ? `${JSON.stringify(JSON.parse(canonicalJson(s)), null, 2)}\n` : '');

/** The unified diff of two versions' server.json ('' when they are the same). */
export function serverJsonDiff(before: ServerJson | undefined, after: ServerJson): string {
  return unifiedDiff(
    pretty(before),
    pretty(after),
    `server.json ${before?.version ?? '(none)'}`,
    `server.json ${after.version}`,
  );
}
