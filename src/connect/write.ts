// A file written whole or not at all: a temporary file beside it, renamed over it, with the mode it had.
import { chmodSync, renameSync, rmSync, writeFileSync } from 'node:fs';

export function writeInPlace(file: string, data: string | Buffer, mode: number): void {
  const tmp = `${file}.mcpx-${process.pid}.tmp`;
  try {
    writeFileSync(tmp, data, { mode: mode & 0o777 });
    chmodSync(tmp, mode & 0o777); // the umask may have narrowed it
    renameSync(tmp, file);
  } finally {
    rmSync(tmp, { force: true });
  }
}
