// Pagination of list results. A cursor is opaque to the client: base64url of the method and offset, so
// a cursor from another list or one never issued is -32602 rather than a silent restart at page one.
import { invalidParams } from '../protocol/errors';
import type { JsonObject } from '../protocol/jsonrpc';

export function paginate(method: string, items: JsonObject[], cursor: string | undefined, pageSize: number) {
  let offset = 0;
  if (cursor !== undefined) {
    offset = decode(method, cursor);
    if (offset > items.length)
      throw invalidParams(`Invalid cursor: ${JSON.stringify(cursor)} is past the end of ${method}`);
  }
  const page = items.slice(offset, offset + pageSize);
  const next = offset + pageSize < items.length ? encode(method, offset + pageSize) : undefined;
  return { page, nextCursor: next };
}

const encode = (method: string, offset: number) => Buffer.from(JSON.stringify([method, offset])).toString('base64url');

function decode(method: string, cursor: string): number {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v[0] === method && Number.isInteger(v[1]) && (v[1] as number) > 0) return v[1] as number;
  } catch {
    // fall through: not one of ours
  }
  throw invalidParams(`Invalid cursor: ${JSON.stringify(cursor)} was not issued by this server for ${method}`);
}
