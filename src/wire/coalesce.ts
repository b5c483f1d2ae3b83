// Frames to one pipe written together: every frame queued during one turn of the event loop goes out in
// one write at the end of it (setImmediate runs after the I/O callbacks of the turn), so a burst of
// pipelined calls costs one write syscall instead of one each (docs/performance.md). What is held is
// bounded: past `maxBytes` the frames are written at once, never held longer; a stream that does not
// drain is the owner's to bound (upstream/stdio.ts), as before.
import type { Writable } from 'node:stream';

/** What one turn's frames may reach before they are written without waiting for the turn's end. */
export const COALESCE_MAX_BYTES = 256 * 1024;

export class CoalescedWriter {
  private frames: string[] = [];
  /** Characters held (each at least one byte): the bound is on what mcpx holds, not on the encoding. */
  private held = 0;
  private scheduled = false;
  private readonly flushNow = (): void => this.flush();

  constructor(
    private readonly out: Writable,
    private readonly maxBytes = COALESCE_MAX_BYTES,
  ) {}

  /** Characters queued and not yet handed to the stream. */
  get pending(): number {
    return this.held;
  }

  /** Queue one frame (already delimited, e.g. a JSON line with its newline). */
  write(frame: string): void {
    this.frames.push(frame);
    this.held += frame.length;
    if (this.held >= this.maxBytes) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushNow);
    }
  }

  /** Hand what is queued to the stream now, in one write. */
  flush(): void {
    this.scheduled = false;
    if (this.frames.length === 0) return;
    const chunk = this.frames.length === 1 ? this.frames[0]! : this.frames.join('');
    this.frames = [];
    this.held = 0;
    if (!this.out.writableEnded && !this.out.destroyed) this.out.write(chunk);
  }

  /** Drop what is queued (the stream's peer is gone). */
  discard(): void {
    this.frames = [];
    this.held = 0;
  }
}
