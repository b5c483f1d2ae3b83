// A zip archive's files, read from its central directory (APPNOTE.TXT 4.3): stored and deflated entries,
// no zip64, no encryption. An entry whose path would leave the target (absolute, `..`, a drive letter) is
// refused, and the whole is bounded (entries, bytes out) so a small archive cannot fill the disk.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, normalize, resolve, sep } from 'node:path';
import { inflateRawSync } from 'node:zlib';

export interface ZipBounds {
  maxEntries: number;
  maxBytes: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** Extracts `zip` into `dir` (made if missing); returns the files written, relative to `dir`. */
export function extractZip(zip: Buffer, dir: string, bounds: ZipBounds): string[] {
  // The end of central directory record: in the last 64 KiB + 22 bytes.
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--)
    if (zip.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  if (eocd < 0) throw new Error('not a zip archive (no end of central directory)');
  const count = zip.readUInt16LE(eocd + 10);
  if (count > bounds.maxEntries) throw new Error(`the archive holds ${count} entries, more than ${bounds.maxEntries}`);
  let at = zip.readUInt32LE(eocd + 16);
  const root = resolve(dir);
  const written: string[] = [];
  let total = 0;
  for (let n = 0; n < count; n++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL) throw new Error('a damaged central directory');
    const flags = zip.readUInt16LE(at + 8);
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const usize = zip.readUInt32LE(at + 24);
    const nameLen = zip.readUInt16LE(at + 28);
    const extraLen = zip.readUInt16LE(at + 30);
    const commentLen = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLen).toString('utf8');
    at += 46 + nameLen + extraLen + commentLen;
    if (flags & 1) throw new Error(`${name}: encrypted entries are not read`);
    const path = name.replace(/\\/g, '/');
    if (path.startsWith('/') || /^[A-Za-z]:/.test(path) || path.split('/').includes('..'))
      throw new Error(`${JSON.stringify(name)}: a path outside the archive's folder`);
    const target = resolve(root, normalize(path));
    if (target !== root && !target.startsWith(root + sep))
      throw new Error(`${JSON.stringify(name)}: a path outside the archive's folder`);
    if (path.endsWith('/')) {
      mkdirSync(target, { recursive: true });
      continue;
    }
    total += usize;
    if (total > bounds.maxBytes) throw new Error(`the archive unpacks to more than ${bounds.maxBytes} bytes`);
    if (local + 30 > zip.length || zip.readUInt32LE(local) !== LOCAL)
      throw new Error(`${name}: a damaged local header`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(start, start + size);
    const data =
      method === 0 ? raw : method === 8 ? inflateRawSync(raw, { maxOutputLength: Math.max(1, usize) }) : undefined;
    if (!data) throw new Error(`${name}: compression method ${method} is not read`);
    if (data.length !== usize) throw new Error(`${name}: unpacked to ${data.length} bytes, not ${usize}`);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, data, { mode: 0o644 });
    written.push(path);
  }
  return written;
}
