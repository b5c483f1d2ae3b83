// A request body read whole, up to a bound: past it the body is refused (BodyTooLarge, once the client
// has finished sending), and past 16 times the bound the connection is dropped rather than read on.
import type { IncomingMessage } from 'node:http';

export class BodyTooLarge extends Error {
  constructor(
    readonly size: number,
    readonly max: number,
  ) {
    super(`body too large: ${size} bytes; the limit is ${max}`);
    this.name = 'BodyTooLarge';
  }
}

/** `application/json`, parameters (charset) allowed. */
function isJsonType(ct: string): boolean {
  const semi = ct.indexOf(';');
  return (semi < 0 ? ct : ct.slice(0, semi)).trim().toLowerCase() === 'application/json';
}

/** Why a POST's body may not be read as JSON — its Content-Type is not application/json (the 415 of /mcp:
 *  a web page's blind cross-origin POST has none or a "simple" one, text/plain or a form) — or undefined.
 *  `optional`: a route whose body may be left out takes a request without one and without a type. */
export function notJson(req: IncomingMessage, optional = false): string | undefined {
  const ct = req.headers['content-type'];
  if (ct !== undefined && isJsonType(ct)) return undefined;
  const body = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (optional && ct === undefined && !body) return undefined;
  return `Unsupported Content-Type ${ct === undefined ? '(none)' : JSON.stringify(ct)}: send application/json`;
}

export function readBody(req: IncomingMessage, max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= max) chunks.push(c);
      else if (size > max * 16) req.destroy();
    });
    req.on('end', () => {
      if (size > max) reject(new BodyTooLarge(size, max));
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
  });
}
