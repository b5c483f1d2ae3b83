// The messages between an app's webview page (webview/app.js) and the extension. The page is untrusted:
// whatever the app in its frame makes the bridge send arrives here, so each message is parsed with a
// bound on every field, and one that does not parse is refused with the reason (never acted on).
import { z } from 'zod';
import type { JsonObject } from '../../protocol/jsonrpc';

/** A tool call's arguments past this many bytes (their JSON) are refused. */
const MAX_ARGS_BYTES = 1024 * 1024;
const MAX_TEXT = 16 * 1024;
const id = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const bounded = (max: number) =>
  z.unknown().refine((v) => JSON.stringify(v ?? null).length <= max, `more than ${max} bytes`);

/** A content block of a `ui/message`: text is shown; others are named by type. */
const Block = z.object({ type: z.string().max(64), text: z.string().max(MAX_TEXT).optional() }).passthrough();

const FromPage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }).strict(),
  z
    .object({
      type: z.literal('callTool'),
      id,
      name: z.string().min(1).max(256),
      arguments: z
        .record(z.string(), z.unknown())
        .refine((a) => JSON.stringify(a).length <= MAX_ARGS_BYTES, `more than ${MAX_ARGS_BYTES} bytes`)
        .optional(),
    })
    .strict(),
  z.object({ type: z.literal('message'), id, role: z.string().max(32), content: z.array(Block).max(32) }).strict(),
  z.object({ type: z.literal('openLink'), id, url: z.string().max(2048) }).strict(),
  z
    .object({
      type: z.literal('log'),
      level: z.enum(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']),
      data: bounded(MAX_TEXT),
    })
    .strict(),
]);

export type FromApp =
  | { type: 'ready' }
  | { type: 'callTool'; id: number; name: string; arguments: JsonObject }
  | { type: 'message'; id: number; text: string }
  | { type: 'openLink'; id: number; url: URL }
  | { type: 'log'; level: string; text: string };

/** A message of the page, checked; or the reason it was refused (and its id, to answer it with). */
export function parseFromApp(raw: unknown): FromApp | { problem: string; id?: number } {
  const m = FromPage.safeParse(raw);
  const rawId = typeof raw === 'object' && raw !== null ? (raw as { id?: unknown }).id : undefined;
  const replyTo = typeof rawId === 'number' && Number.isSafeInteger(rawId) && rawId >= 0 ? rawId : undefined;
  if (!m.success) {
    const issue = m.error.issues[0]!;
    return { problem: `${issue.path.join('.') || 'message'}: ${issue.message}`, id: replyTo };
  }
  const d = m.data;
  switch (d.type) {
    case 'ready':
      return d;
    case 'callTool':
      return { type: 'callTool', id: d.id, name: d.name, arguments: (d.arguments ?? {}) as JsonObject };
    case 'message': {
      const text = d.content
        .map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : `[${b.type}]`))
        .join('\n')
        .slice(0, MAX_TEXT);
      return { type: 'message', id: d.id, text };
    }
    case 'openLink': {
      // Only a web or mail link is opened (after the person agrees): no command:, file: or vscode: URI.
      const url = URL.canParse(d.url) ? new URL(d.url) : undefined;
      if (!url || !['https:', 'http:', 'mailto:'].includes(url.protocol))
        return { problem: `url: not an http(s) or mailto link: ${d.url.slice(0, 200)}`, id: d.id };
      return { type: 'openLink', id: d.id, url };
    }
    case 'log': {
      const text = typeof d.data === 'string' ? d.data : JSON.stringify(d.data);
      return { type: 'log', level: d.level, text };
    }
  }
}
