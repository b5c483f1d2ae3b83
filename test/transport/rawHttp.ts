// Raw HTTP/1.1 exchanges for the transport's hardening tests (http-hardening.test.ts, http-bounds.test.ts):
// a request written by hand, sent on its own socket, and its reply parsed.
import { connect } from 'node:net';
import type { Json } from '../harness/wire';

export const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

export interface RawReply {
  status: number;
  head: string;
  body: string;
}

export function parseReply(text: string): RawReply {
  const at = text.indexOf('\r\n\r\n');
  const head = at < 0 ? text : text.slice(0, at);
  return {
    status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0),
    head,
    body: at < 0 ? '' : text.slice(at + 4),
  };
}

/** Writes `text` on a connection of its own and reads until the server closes it. */
export function exchange(port: number, text: string): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    let got = '';
    s.on('data', (d) => (got += d.toString('latin1')));
    s.on('error', reject);
    s.on('close', () => resolve(parseReply(got)));
    s.write(text);
  });
}

/** A request head and body as an attacker writes it: `lines` are the header lines, Host among them. */
export function request(method: string, target: string, lines: string[], body = '', version = '1.1'): string {
  const length = body || method === 'POST' ? [`Content-Length: ${Buffer.byteLength(body)}`] : [];
  return `${method} ${target} HTTP/${version}\r\n${[...lines, ...length, 'Connection: close'].join('\r\n')}\r\n\r\n${body}`;
}

export const MCP_HEADERS = ['Content-Type: application/json', 'Accept: application/json, text/event-stream'];

export const errorOf = (r: RawReply): Json => (JSON.parse(r.body) as Json).error as Json;
