// The tasks extension as capabilities say it (tasks extension "Extension Identifier", "Capability
// Negotiation"): declared in `extensions`, by both sides, per request from a 2026-07-28 client.
import { type JsonObject, isObject } from './jsonrpc';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Whether these capabilities (a client's per request, or an upstream's) declare the tasks extension. */
export function declaresTasks(caps: JsonObject): boolean {
  return isObject(caps.extensions) && isObject(caps.extensions[TASKS_EXTENSION]);
}

/** Capabilities with the extension added. */
export function withTasks(caps: JsonObject): JsonObject {
  const ext = isObject(caps.extensions) ? caps.extensions : {};
  return { ...caps, extensions: { ...ext, [TASKS_EXTENSION]: {} } };
}
