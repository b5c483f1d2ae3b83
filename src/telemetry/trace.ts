// Tracing as the server and upstream layers see it (docs/gateway.md "Telemetry"): a port with one
// implementation, OpenTelemetry's, in its own bundle (dist/otel.js, telemetry/otel.ts) that is loaded only when a
// gateway starts with telemetry.otlpEndpoint set. Off, `tracing.tracer` is undefined: a request pays one
// check and nothing of OpenTelemetry is in memory.
import { bundleNear } from '../kit/bundles';

/** A span as W3C Trace Context carries it (`traceparent`, `tracestate`). */
export type TraceContext = {
  traceparent: string;
  tracestate?: string;
};

export type Attributes = Record<string, string | number | boolean>;

export interface Span {
  /** This span as the parent of what it causes: a request it sends carries it in `_meta`. */
  readonly context: TraceContext;
  set(attributes: Attributes): void;
  /** Ends it: OK, or ERROR with `error.type` and the error's message as the status. */
  end(error?: { type: string; message: string }): void;
}

export interface Tracer {
  /** A span; `parent` is the remote parent (its `traceparent`), none starts a trace. */
  start(name: string, kind: 'server' | 'client', parent: TraceContext | undefined, attributes: Attributes): Span;
  /** Exports what is queued (bounded in time) and stops. */
  shutdown(): Promise<void>;
}

export interface TracerOptions {
  /** The OTLP/HTTP receiver (telemetry.otlpEndpoint): its base URL, or the whole …/v1/traces URL. */
  endpoint: string;
  serviceName: string;
  serviceVersion: string;
  /** Spans held for export at most (telemetry.maxQueue); past it they are dropped and counted. */
  maxQueue: number;
  log(line: string): void;
}

/** The tracer of this process while a gateway that started one runs. */
export const tracing: { tracer?: Tracer } = {};

const BUNDLE = 'otel.js';

/** Loads the OpenTelemetry bundle and makes its tracer this process's. */
export function startTracing(o: TracerOptions): Tracer {
  // A runtime require of mcpx's own bundle (never bundled into the caller: its path is a value).
  const path = bundleNear(BUNDLE);
  const mod = require(path) as { createTracer(o: TracerOptions): Tracer };
  const t = mod.createTracer(o);
  tracing.tracer = t;
  return t;
}

/** Stops `t`, after exporting what it holds; the process's tracer no longer, unless another took its place. */
export async function stopTracing(t: Tracer): Promise<void> {
  if (tracing.tracer === t) tracing.tracer = undefined;
  await t.shutdown();
}

/** The W3C trace context in a request's `_meta`, where it holds a `traceparent` string. */
export function traceContextOf(meta: Record<string, unknown> | undefined): TraceContext | undefined {
  const traceparent = meta?.traceparent;
  if (typeof traceparent !== 'string') return undefined;
  const tracestate = meta?.tracestate;
  return typeof tracestate === 'string' ? { traceparent, tracestate } : { traceparent };
}
