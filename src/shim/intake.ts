// The stdio shim's intake (docs/gateway.md "The stdio shim"): a client's lines handed to the relay one at
// a time and in order, and held — while a session is being opened or the gateway found again — by not
// reading further rather than by queueing. The input is split in slices of SLICE bytes, and not read at
// all while a line is held, so what a client pipelines waits in its own pipe: the shim holds at most one
// slice's lines, one chunk and one partial line (transport.maxLineBytes) whatever the client writes
// (docs/security.md "Bounds").
import type { Readable } from 'node:stream';
import { LineSplitter } from '../wire/lines';

/** The most bytes split into lines at once; the lines of one slice are what the shim holds at most. */
const SLICE = 64 * 1024;

export interface IntakeHandlers {
  /** One line (or the note of an overlong one), in the order the client wrote it. */
  line(text: string): void;
  overlong(bytes: number): void;
  /** The input ended (or failed) and every line read from it was handed out. */
  end(): void;
}

type Held = { line: string } | { overlong: number };

export class Intake {
  /** Read and not yet split; at most the chunk the input gave before it was paused. */
  private readonly chunks: Buffer[] = [];
  private offset = 0;
  /** Split and not yet handed out (the rest of one slice). */
  private readonly held: Held[] = [];
  private readonly splitter: LineSplitter;
  /** While set, nothing more is handed out. */
  private gate?: Promise<unknown>;
  private inputEnded = false;
  private finished = false;

  constructor(
    private readonly input: Readable,
    maxLineBytes: number,
    private readonly on: IntakeHandlers,
  ) {
    this.splitter = new LineSplitter(maxLineBytes, {
      line: (line) => this.held.push({ line }),
      overlong: (bytes) => this.held.push({ overlong: bytes }),
    });
    input.on('data', (c: Buffer | string) => {
      this.chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
      this.pump();
    });
    const ended = () => {
      this.inputEnded = true;
      this.pump();
    };
    input.on('end', ended);
    input.on('close', ended);
    input.on('error', ended);
  }

  /** Lines not yet handed out wait until `until` settles (in either way). */
  hold(until: Promise<unknown>): void {
    const gate = Promise.all([this.gate, until]).then(
      () => undefined,
      () => undefined,
    );
    this.gate = gate;
    void gate.then(() => {
      if (this.gate !== gate) return;
      this.gate = undefined;
      this.pump();
    });
  }

  /** Hands out lines until one holds the rest, or there is nothing more; reads on only when all is out. */
  private pump(): void {
    while (!this.gate && !this.finished) {
      const next = this.held.shift();
      if (next) {
        if ('line' in next) this.on.line(next.line);
        else this.on.overlong(next.overlong);
        continue;
      }
      const chunk = this.chunks[0];
      if (chunk) {
        const end = Math.min(this.offset + SLICE, chunk.length);
        this.splitter.push(chunk.subarray(this.offset, end));
        if (end === chunk.length) {
          this.chunks.shift();
          this.offset = 0;
        } else this.offset = end;
        continue;
      }
      if (!this.inputEnded) break;
      // A last line without a newline is still a line (as the in-process stdio transport reads it).
      this.splitter.end();
      if (this.held.length) continue;
      this.finished = true;
      this.on.end();
    }
    if (this.finished) return;
    if (this.gate || this.chunks.length || this.held.length) this.input.pause();
    else this.input.resume();
  }
}
