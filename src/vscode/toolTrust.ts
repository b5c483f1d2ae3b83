// What a tool says about itself (its annotations). The specification calls annotations untrusted hints
// (2025-11-25 server/tools "Tool Annotations"): the Upstreams view and the approval prompt
// (permissions/approver.ts) show them as the server's own words.
import { type JsonObject, isObject } from '../protocol/jsonrpc';

const HINTS = [
  { key: 'readOnlyHint', on: 'read-only', off: 'may change things', icon: 'eye' },
  { key: 'destructiveHint', on: 'destructive', off: 'not destructive', icon: 'warning' },
  { key: 'idempotentHint', on: 'idempotent', off: 'not idempotent', icon: 'sync' },
  { key: 'openWorldHint', on: 'reaches the outside world', off: 'closed world', icon: 'globe' },
] as const;

/** A tool's annotations as the Upstreams view shows them: a short description (the hints that are set),
 *  an icon for the strongest one, and tooltip lines marked as the server's own claims. */
export function trustCues(tool: JsonObject): { words: string[]; icon?: string; tooltip: string[] } {
  const a = isObject(tool.annotations) ? tool.annotations : {};
  const words: string[] = [];
  const tooltip: string[] = [];
  for (const h of HINTS) {
    if (typeof a[h.key] !== 'boolean') continue;
    const word = a[h.key] ? h.on : h.off;
    tooltip.push(`- ${word} (${h.key}: ${String(a[h.key])})`);
    if (a[h.key]) words.push(word);
  }
  const icon = a.destructiveHint === true ? 'warning' : a.readOnlyHint === true ? 'eye' : undefined;
  return {
    words,
    icon,
    tooltip: tooltip.length
      ? ['The server says (untrusted hints):', ...tooltip]
      : ['The server says nothing about this tool.'],
  };
}
