// The OpenTelemetry tests' kit (otel.test.ts, otel-daemon.test.ts): the state directory, a client's trace
// context, an OTLP/HTTP receiver that keeps the spans it is sent, and a span's attributes read.
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { killAll } from '../harness/upstreams';

export const dir = mkdtempSync(join(tmpdir(), 'mcpx-otel-'));
after(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

export const CLIENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
export const CLIENT_SPAN = 'b7ad6b7169203331';
export const TRACEPARENT = `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`;
export const META_CALL = {
  name: 'mcpx_call',
  arguments: { server: 'up', tool: 'meta', arguments: { secret: 'do-not-export' } },
};

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  status?: { code?: number; message?: string };
}
export interface Receiver {
  url: string;
  requests: Array<{ path: string; contentType: string; body: string }>;
  spans(): OtlpSpan[];
  close(): Promise<void>;
}

/** An OTLP/HTTP receiver: every POST recorded, answered 200 with an empty ExportTraceServiceResponse. */
export async function receiver(): Promise<Receiver> {
  const requests: Receiver['requests'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({
        path: req.url ?? '',
        contentType: String(req.headers['content-type']),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans: () =>
      requests.flatMap((r) => {
        const body = JSON.parse(r.body) as {
          resourceSpans: Array<{
            resource: { attributes: OtlpSpan['attributes'] };
            scopeSpans: Array<{ spans: OtlpSpan[] }>;
          }>;
        };
        return body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((s) => s.spans));
      }),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export const attr = (s: OtlpSpan, key: string): unknown => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v === undefined ? undefined : Object.values(v)[0];
};
export const SERVER_KIND = 2;
export const CLIENT_KIND = 3;
