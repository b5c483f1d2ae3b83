// Reading a file the person names (the config file, a server's envFile) without letting it stop the
// gateway: only a regular file is read. A named pipe with no writer would block an ordinary open until one
// comes — on the event loop (a sync read) or on one of libuv's four pool threads (an async one) — and with
// it /health, every client, every other server and the handling of SIGTERM; a character device such as
// /dev/zero never ends. So the file is opened non-blocking (a FIFO's open returns at once), its type read
// from the open descriptor (no race with a rename between a check and the open), and anything but a
// regular file is refused, naming what it is; a regular file is read whole, within a bound.
import { type Stats, closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';

/** Where the platform has no O_NONBLOCK (Windows: named pipes live outside the file system), 0. */
const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** A path that names something other than a regular file, or one past the bound. */
export class NotReadable extends Error {
  constructor(
    readonly path: string,
    why: string,
  ) {
    super(`${path} ${why}`);
    this.name = 'NotReadable';
  }
}

function what(st: Stats): string {
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isDirectory()) return 'a directory';
  return 'not a regular file';
}

function check(path: string, st: Stats, maxBytes: number): void {
  if (!st.isFile()) throw new NotReadable(path, `is ${what(st)}, not a regular file: it is not read`);
  if (st.size > maxBytes) throw new NotReadable(path, `is ${st.size} bytes, more than the ${maxBytes} read`);
}

/** The file's text, read at once (never waiting on a writer); NotReadable for anything but a regular file
 *  of at most `maxBytes`; the open's own error (ENOENT, EACCES) as it is. */
export function readRegularFileSync(path: string, maxBytes: number): string {
  const fd = openSync(path, FLAGS);
  try {
    check(path, fstatSync(fd), maxBytes);
    // It may grow while it is read: read until its end, or until it is past the bound.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(64 * 1024);
      const got = readSync(fd, chunk, 0, chunk.length, null);
      if (got === 0) break;
      chunks.push(chunk.subarray(0, got));
      total += got;
      if (total > maxBytes) throw new NotReadable(path, `grew past the ${maxBytes} bytes read`);
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** readRegularFileSync off the event loop. */
export async function readRegularFile(path: string, maxBytes: number): Promise<string> {
  return (await readRegularBytes(path, maxBytes)).toString('utf8');
}

/** The file's bytes, off the event loop, as readRegularFile reads them. `noFollow`: a symbolic link at the
 *  path itself is refused (ELOOP) rather than followed, where the platform can say so. */
export async function readRegularBytes(path: string, maxBytes: number, noFollow = false): Promise<Buffer> {
  const h = await open(path, FLAGS | (noFollow ? (constants.O_NOFOLLOW ?? 0) : 0));
  try {
    check(path, await h.stat(), maxBytes);
    // It may grow while it is read: read until its end, or until it is past the bound.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const { bytesRead, buffer } = await h.read(Buffer.alloc(64 * 1024), 0, 64 * 1024, null);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) throw new NotReadable(path, `grew past the ${maxBytes} bytes read`);
    }
    return Buffer.concat(chunks);
  } finally {
    await h.close();
  }
}
