// A JSON body with its length: the one way mcpx answers HTTP with JSON (/mcp refusals and /v1 routes).
import type { ServerResponse } from 'node:http';
import { type Json, jsonLength } from './raw';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  /** `text`: `body` already serialized (the runner's Outcome.text), sent as it is. */
  o: { headers?: Record<string, string>; pretty?: boolean; text?: Json } = {},
): void {
  if (res.headersSent) return void res.end();
  const text = o.text ?? (o.pretty ? JSON.stringify(body, null, 2) : JSON.stringify(body));
  res.writeHead(status, {
    ...o.headers,
    'Content-Type': 'application/json',
    'Content-Length': jsonLength(text),
  });
  res.end(text);
}
