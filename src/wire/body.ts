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
