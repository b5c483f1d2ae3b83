// Tool calls from the palette: while one runs with its progress notification it can be sent to the
// background ("Run in background"); sent there, it runs on in the editor and the Tasks view lists it
// beside the gateway's tasks (newest last; the finished ones beyond MAX_KEPT go). Alive while the
// extension is: a reload of the gateway does not forget them; the extension going cancels those running.
import type { JsonObject } from '../protocol/jsonrpc';
import { type Disposable, Emitter, disposable } from './lifetimes';

const MAX_KEPT = 20;

/** A palette tool call sent to the background. */
export interface PaletteCall {
  readonly id: string;
  readonly server: string;
  readonly tool: string;
  /** The arguments it was called with (an app is handed them). */
  readonly arguments: JsonObject;
  /** The tool's definition, when it has an MCP App (Show Result opens the app). */
  readonly definition?: JsonObject;
  readonly startedAt: number;
  status: 'working' | 'completed' | 'failed' | 'cancelled';
  endedAt?: number;
  progress?: { progress: number; total?: number };
  /** The result, or the error's message, once it has finished. */
  outcome?: JsonObject | string;
  /** Cancels the call (its upstream work is aborted). */
  readonly abort: AbortController;
}

export class PaletteCalls implements Disposable {
  private readonly calls: PaletteCall[] = [];
  /** Calls running with their notification: id -> send it to the background. */
  private readonly detachers = new Map<string, () => void>();
  private readonly changed = new Emitter();
  /** A call sent to the background came, changed or went. */
  readonly onDidChange = this.changed.event;

  /** The calls sent to the background, oldest first. */
  list(): readonly PaletteCall[] {
    return this.calls;
  }

  find(id: string): PaletteCall | undefined {
    return this.calls.find((c) => c.id === id);
  }

  /** A call shown with its notification can be sent to the background until the returned disposable
   *  says it is over. */
  detachable(id: string, detach: () => void): Disposable {
    this.detachers.set(id, detach);
    return disposable(() => this.detachers.delete(id));
  }

  /** Sends a call to the background: the one named, or the newest running. False when there is none. */
  detach(id?: string): boolean {
    const detach = id !== undefined ? this.detachers.get(id) : [...this.detachers.values()].at(-1);
    detach?.();
    return detach !== undefined;
  }

  /** A call now runs in the background. */
  add(call: PaletteCall): void {
    this.calls.push(call);
    this.update();
  }

  /** Cancelled from the Tasks view: its work is aborted. */
  cancel(call: PaletteCall): void {
    call.status = 'cancelled';
    call.endedAt = Date.now();
    call.abort.abort(new Error('cancelled in the editor'));
    this.update();
  }

  /** A call changed: the oldest finished beyond MAX_KEPT go, and the views hear of it. */
  update(): void {
    const finished = this.calls.filter((c) => c.status !== 'working');
    for (const c of finished.slice(0, Math.max(0, finished.length - MAX_KEPT)))
      this.calls.splice(this.calls.indexOf(c), 1);
    this.changed.fire();
  }

  dispose(): void {
    for (const c of this.calls) if (c.status === 'working') c.abort.abort(new Error('the extension is deactivating'));
    this.changed.dispose();
  }
}
