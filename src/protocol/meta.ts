// `_meta` keys mcpx reads or writes.
import { invalidParams } from './errors';

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
  /** The task a message belongs to (2025-11-25 basic/utilities/tasks "Related Task Metadata"). */
  relatedTask: 'io.modelcontextprotocol/related-task',
  /** A client-chosen identity (docs/protocol.md "Client identity"). */
  session: 'dev.mcpx/session',
  /** A shorter timeout the client asks for (docs/gateway.md "Timeouts, in order of precedence"). */
  timeoutMs: 'dev.mcpx/timeoutMs',
} as const;

/** The timeout a request asks for in `_meta["dev.mcpx/timeoutMs"]`: undefined where it asks none; a
 *  positive whole number of milliseconds; anything else is -32602 naming the key. It may only lower the
 *  configured timeout (clamped where it is applied, upstream/pool.ts `callTimeout`). */
export function askedTimeoutMs(meta: Readonly<Record<string, unknown>> | undefined): number | undefined {
  const v = meta?.[META.timeoutMs];
  if (v === undefined) return undefined;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return v;
  throw invalidParams(
    `Invalid params: _meta["${META.timeoutMs}"] must be a positive whole number of milliseconds, got ${JSON.stringify(v) ?? String(v)}`,
  );
}

const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const isLogLevel = (v: unknown): v is LogLevel =>
  typeof v === 'string' && (LOG_LEVELS as readonly string[]).includes(v);
/** Whether a message at `level` passes a threshold of `min`. */
export const atLeastLevel = (level: LogLevel, min: LogLevel): boolean =>
  LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(min);

/** A client's name for a person, from its clientInfo (Implementation): its title, else its name. */
export function clientNameOf(info: unknown): string | undefined {
  if (typeof info !== 'object' || info === null || Array.isArray(info)) return undefined;
  const i = info as { title?: unknown; name?: unknown };
  const n = i.title ?? i.name;
  return typeof n === 'string' && n ? n : undefined;
}
