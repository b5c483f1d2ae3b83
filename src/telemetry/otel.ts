// The OpenTelemetry SDK behind telemetry/trace.ts's port: its own bundle, dist/otel.js, required only when a
// gateway starts with telemetry.otlpEndpoint set (docs/gateway.md "Telemetry"). Spans go to the receiver
// over OTLP/HTTP (JSON) through a bounded queue: a call never waits on the exporter, a span past
// telemetry.maxQueue or in a batch the receiver did not take is dropped and counted, and the first drop
// is logged once.
import { type Context, ROOT_CONTEXT, SpanKind, SpanStatusCode, type Span as OtelSpan, trace } from '@opentelemetry/api';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Attributes, Span, TraceContext, Tracer, TracerOptions } from './trace';

/** Spans per export request. */
const BATCH = 256;
/** How often what is queued is exported. */
const EVERY_MS = 1000;
/** One export's bound (the exporter's own retries included). */
const EXPORT_TIMEOUT_MS = 5000;
/** How long shutdown waits for the last export: a receiver that is down never holds the gateway's close. */
const SHUTDOWN_MS = 2000;

const propagator = new W3CTraceContextPropagator();
const getter = {
  keys: (c: TraceContext) => Object.keys(c),
  get: (c: TraceContext, k: string) => c[k as keyof TraceContext],
};
const setter = { set: (c: Record<string, string>, k: string, v: string) => void (c[k] = v) };

export function createTracer(o: TracerOptions): Tracer {
  const exporter = new OTLPTraceExporter({ url: tracesUrl(o.endpoint), timeoutMillis: EXPORT_TIMEOUT_MS });
  const queue = new BoundedBatch(exporter, o.maxQueue, o.log);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: o.serviceName, [ATTR_SERVICE_VERSION]: o.serviceVersion }),
    spanProcessors: [queue],
  });
  const tracer = provider.getTracer('mcpx', o.serviceVersion);
  return {
    start(name, kind, parent, attributes) {
      const ctx = parent ? propagator.extract(ROOT_CONTEXT, parent, getter) : ROOT_CONTEXT;
      const span = tracer.startSpan(
        name,
        { kind: kind === 'server' ? SpanKind.SERVER : SpanKind.CLIENT, attributes },
        ctx,
      );
      return new SdkSpan(span);
    },
    shutdown: () => provider.shutdown(),
  };
}

/** OTLP/HTTP's traces path under the receiver's base URL, unless the setting names it already. */
function tracesUrl(endpoint: string): string {
  const url = new URL(endpoint);
  if (!url.pathname.endsWith('/v1/traces')) url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/traces`;
  return url.toString();
}

class SdkSpan implements Span {
  private ctx?: TraceContext;
  constructor(private readonly span: OtelSpan) {}

  get context(): TraceContext {
    if (!this.ctx) {
      const carrier: Record<string, string> = {};
      propagator.inject(trace.setSpan(ROOT_CONTEXT as Context, this.span), carrier, setter);
      this.ctx = carrier as TraceContext;
    }
    return this.ctx;
  }
  set(attributes: Attributes): void {
    this.span.setAttributes(attributes);
  }
  end(error?: { type: string; message: string }): void {
    if (error) {
      this.span.setAttribute(ATTR_ERROR_TYPE, error.type);
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    }
    this.span.end();
  }
}

/** Ended spans held for export, at most `max`; exported a batch at a time, one export in flight. */
class BoundedBatch implements SpanProcessor {
  private queue: ReadableSpan[] = [];
  private exporting?: Promise<void>;
  /** Spans in the export in flight. */
  private sending = 0;
  private dropped = 0;
  /** Shut down: an export still in flight then was counted as dropped, whatever it comes to. */
  private closed = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly exporter: SpanExporter,
    private readonly max: number,
    private readonly log: (line: string) => void,
  ) {
    this.timer = setInterval(() => void this.export(), EVERY_MS);
    this.timer.unref();
  }

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if (this.queue.length >= this.max) return this.drop(1, `more than ${this.max} spans waited (telemetry.maxQueue)`);
    this.queue.push(span);
    if (this.queue.length >= BATCH) void this.export();
  }

  /** Counted always, logged the first time only: a receiver that is down must not flood the log. */
  private drop(n: number, why: string): void {
    if (this.closed) return;
    if (this.dropped === 0) this.log(`telemetry: ${n} span(s) dropped: ${why}; later drops are counted, not logged`);
    this.dropped += n;
  }

  private export(): Promise<void> {
    if (this.exporting || this.queue.length === 0) return this.exporting ?? Promise.resolve();
    const batch = this.queue.splice(0, BATCH);
    this.sending = batch.length;
    this.exporting = new Promise<void>((resolve) => {
      try {
        this.exporter.export(batch, (r) => {
          if (r.code !== ExportResultCode.SUCCESS)
            this.drop(batch.length, `the receiver did not take them (${r.error?.message ?? 'export failed'})`);
          resolve();
        });
      } catch (e) {
        this.drop(batch.length, (e as Error).message);
        resolve();
      }
    }).finally(() => {
      this.exporting = undefined;
      this.sending = 0;
    });
    return this.exporting;
  }

  async forceFlush(): Promise<void> {
    while (this.exporting || this.queue.length) await this.export();
  }

  async shutdown(): Promise<void> {
    clearInterval(this.timer);
    await within(this.forceFlush(), SHUTDOWN_MS);
    // What did not get through in time (a receiver down: the exporter retries) is dropped too.
    this.dropped += this.queue.splice(0).length + this.sending;
    this.closed = true;
    if (this.dropped) this.log(`telemetry: ${this.dropped} span(s) dropped in all`);
    await within(this.exporter.shutdown(), SHUTDOWN_MS);
  }
}

/** `p`, or nothing after `ms`. */
async function within(p: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}
