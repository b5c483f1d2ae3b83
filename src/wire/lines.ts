// Newline-delimited framing with a bound (transport.maxLineBytes, docs/security.md "Bounds"): both stdio
// directions read lines through it. Nothing past the bound is buffered: a line that grows past it is
// reported once and the rest of it is discarded up to the next newline; the line after it is read as
// usual. stdio transport (every revision's basic/transports): messages are delimited by newlines and
// MUST NOT contain embedded newlines, so a trailing "\r" is the only other byte a line may end with.
import type { Readable } from 'node:stream';

export type LineHandlers = (
  | {
      /** `bytes`: the line as it arrived (without its newline). */
      line(line: string, bytes: Buffer): void;
    }
  | {
      /** The line as it arrived (without its newline), not decoded: for a reader that keeps the bytes
       *  or decodes only part of them (wire/raw.ts, wire/lazy.ts). */
      bytes(bytes: Buffer): void;
    }
) & {
  /** A line longer than the bound: `bytes` is how much of it was seen before it was dropped. */
  overlong(bytes: number): void;
};

export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  /** In the rest of an overlong line: bytes are dropped until the next newline. */
  private skipping = false;

  constructor(
    private readonly maxBytes: number,
    private readonly on: LineHandlers,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      if (!this.skipping) {
        const piece = chunk.subarray(start, end);
        const total = this.size + piece.length;
        const last = piece.length ? piece[piece.length - 1] : this.parts.at(-1)?.at(-1);
        // Unfinished, one byte may still be the "\r" of "\r\n"; finished, a trailing "\r" is not content.
        const over = nl === -1 ? total > this.maxBytes + 1 : total - (last === 0x0d ? 1 : 0) > this.maxBytes;
        if (over) {
          this.on.overlong(total);
          this.parts = [];
          this.size = 0;
          this.skipping = nl === -1;
        } else {
          this.parts.push(piece);
          this.size = total;
          if (nl !== -1) this.flush();
        }
      } else if (nl !== -1) this.skipping = false;
      if (nl === -1) break;
      start = nl + 1;
    }
  }

  /** End of input: a last line without a newline is still a line. */
  end(): void {
    if (this.size > 0 && !this.skipping) this.flush();
    this.parts = [];
    this.size = 0;
  }

  private flush(): void {
    let buf = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    if (buf[buf.length - 1] === 0x0d) buf = buf.subarray(0, buf.length - 1);
    if ('bytes' in this.on) this.on.bytes(buf);
    else this.on.line(buf.toString('utf8'), buf);
  }
}

/** Read `input` as lines, at most `maxBytes` each; `done` runs once at its end (or close). */
export function readLines(input: Readable, maxBytes: number, on: LineHandlers, done?: () => void): void {
  const s = new LineSplitter(maxBytes, on);
  input.on('data', (chunk: Buffer | string) => s.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  let ended = false;
  const finish = () => {
    if (ended) return;
    ended = true;
    s.end();
    done?.();
  };
  input.on('end', finish);
  input.on('close', finish);
}
