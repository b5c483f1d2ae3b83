// Spans of MCP requests as the OpenTelemetry semantic conventions for MCP name them (semconv gen-ai/mcp.md,
// status Development): one SERVER span per request a client sends mcpx, one CLIENT span per request mcpx
// sends an upstream, named `{mcp.method.name} {target}` (the tool's or prompt's name), their attributes
// read from the request's method, id and params — never its arguments, and nothing of a result but
// whether it is an error (docs/gateway.md "Telemetry").
import { createHash } from 'node:crypto';
import type { Id, JsonObject } from '../protocol/jsonrpc';
import type { Attributes, Span, TraceContext, Tracer } from './trace';

export interface RequestFacts {
  method: string;
  params: JsonObject;
  id?: Id;
  transport: 'stdio' | 'http';
  /** A legacy Streamable HTTP session's Mcp-Session-Id. */
  sessionId?: string;
}

/** A span for one request; callers ask `tracing.tracer` first (off, a request pays that one check). */
export function startSpan(
  tracer: Tracer,
  kind: 'server' | 'client',
  r: RequestFacts,
  parent: TraceContext | undefined,
): Span {
  const name = typeof r.params.name === 'string' && NAMED[r.method] ? `${r.method} ${r.params.name}` : r.method;
  return tracer.start(name, kind, parent, attributesOf(r));
}

/** The attribute a method's `name` param is (and a low-cardinality target for the span's name). */
const NAMED: Record<string, string> = { 'tools/call': 'gen_ai.tool.name', 'prompts/get': 'gen_ai.prompt.name' };
/** Methods whose params name a resource by its URI (mcp.resource.uri). */
const BY_URI = new Set(['resources/read', 'resources/subscribe', 'resources/unsubscribe']);

function attributesOf(r: RequestFacts): Attributes {
  const a: Attributes = {
    'mcp.method.name': r.method,
    // stdio is a pipe; Streamable HTTP runs on TCP (semconv "network.transport").
    'network.transport': r.transport === 'stdio' ? 'pipe' : 'tcp',
  };
  if (r.transport === 'http') a['network.protocol.name'] = 'http';
  if (r.id !== undefined) a['jsonrpc.request.id'] = String(r.id);
  // The id itself is half of what reaches the session (with the endpoint secret): a digest of it is
  // exported, the same for every span of the session.
  if (r.sessionId !== undefined)
    a['mcp.session.id'] = createHash('sha256').update(r.sessionId).digest('hex').slice(0, 32);
  const named = NAMED[r.method];
  if (named && typeof r.params.name === 'string') a[named] = r.params.name;
  if (r.method === 'tools/call') a['gen_ai.operation.name'] = 'execute_tool';
  if (BY_URI.has(r.method) && typeof r.params.uri === 'string') a['mcp.resource.uri'] = r.params.uri;
  return a;
}

/** How a request ended, as its span records it. */
export type Ending = { result: JsonObject } | { error: { code: number; message: string } } | { thrown: unknown };

/** Ends a span: a JSON-RPC error's code is its error.type and rpc.response.status_code, a tool result
 *  with isError is `tool_error` (semconv: "error.type"); the status message is the error's message. */
export function endSpan(span: Span, how: Ending): void {
  if ('result' in how) {
    if (how.result.isError === true) span.end({ type: 'tool_error', message: 'the tool result has isError' });
    else span.end();
    return;
  }
  const e = 'error' in how ? { ...how.error, type: String(how.error.code) } : codeOf(how.thrown);
  if (e.code !== undefined) span.set({ 'rpc.response.status_code': String(e.code) });
  span.end({ type: e.type, message: e.message });
}

/** A thrown error's JSON-RPC code where it has one (a ProtocolError), else its name. */
function codeOf(thrown: unknown): { code?: number; type: string; message: string } {
  const e = thrown as { code?: unknown; message?: unknown; name?: unknown } | undefined;
  const message = typeof e?.message === 'string' ? e.message : String(thrown);
  if (typeof e?.code === 'number') return { code: e.code, type: String(e.code), message };
  return { type: typeof e?.name === 'string' ? e.name : 'Error', message };
}

/** A span as the `_meta` of a request it parents. */
export const metaOf = (span: Span): JsonObject => ({ ...span.context });
