// The editor's two lifetimes. The extension's: commands, views and the status bar, registered at
// activation and alive until the extension is disposed (docs/commands.md: every command is there while
// the gateway is not, and says why). One gateway run's: what depends on the gateway that runs now — the
// subscriptions on it, the state made for it — disposed when that run ends (a stop, or a reload on a
// config change), so nothing of one run is left listening to the next. No `vscode` here: the unit tests
// drive it in plain Node.

export interface Disposable {
  dispose(): unknown;
}

/** A disposable from a function (an unsubscribe, a field reset). */
export const disposable = (dispose: () => unknown): Disposable => ({ dispose });

/** vscode.Event's shape: a listener in, its disposable out (also pushed to `disposables` when given). */
export type Event<T> = (listener: (e: T) => unknown, thisArgs?: unknown, disposables?: Disposable[]) => Disposable;

/** An event source with no `vscode` in it (a view's onDidChangeTreeData, the host's changes). */
export class Emitter<T = void> implements Disposable {
  private listeners: Array<(e: T) => unknown> = [];
  readonly event: Event<T> = (listener, thisArgs, disposables) => {
    const bound = thisArgs === undefined ? listener : listener.bind(thisArgs);
    this.listeners.push(bound);
    const d = disposable(() => (this.listeners = this.listeners.filter((l) => l !== bound)));
    disposables?.push(d);
    return d;
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  /** How many listen now (a test counts what a run left behind). */
  get size(): number {
    return this.listeners.length;
  }
  dispose(): void {
    this.listeners = [];
  }
}

/** What starts with a run: the disposables it made for that run. */
type RunStart<R> = (run: R) => Disposable[];

export class Lifetimes<R> implements Disposable {
  private readonly extension: Disposable[] = [];
  private readonly starts: Array<RunStart<R>> = [];
  private current?: { run: R; held: Disposable[] };

  /** Alive while the extension is; returns it. */
  keep<T extends Disposable>(d: T): T {
    this.extension.push(d);
    return d;
  }

  /** `start` is called at the start of every gateway run (at once if one runs now); what it returns is
   *  disposed when that run ends. */
  perRun(start: RunStart<R>): void {
    this.starts.push(start);
    if (this.current) this.current.held.push(...start(this.current.run));
  }

  /** The run now, if a gateway runs. */
  get run(): R | undefined {
    return this.current?.run;
  }

  /** Holds `d` until the current run ends, or until the disposable returned is disposed (which disposes
   *  `d` then). With no run, `d` is disposed at once and undefined returned. */
  forRun(d: Disposable): Disposable | undefined {
    const held = this.current?.held;
    if (!held) {
      d.dispose();
      return undefined;
    }
    held.push(d);
    return disposable(() => {
      const i = held.indexOf(d);
      if (i >= 0) held.splice(i, 1);
      d.dispose();
    });
  }

  /** A gateway run begins (the host calls this once the gateway listens). */
  begin(run: R): void {
    if (this.current) throw new Error('a gateway run is already under way');
    this.current = { run, held: [] };
    for (const start of this.starts) this.current.held.push(...start(run));
  }

  /** The run ends: everything held for it is disposed, newest first; a promise a disposal returns
   *  (a listener closing) is waited for. */
  async end(): Promise<void> {
    const held = this.current?.held ?? [];
    this.current = undefined;
    const pending: unknown[] = [];
    for (const d of held.splice(0).reverse()) pending.push(d.dispose());
    await Promise.all(pending);
  }

  /** How many disposables each lifetime holds now. */
  counts(): { extension: number; run: number } {
    return { extension: this.extension.length, run: this.current?.held.length ?? 0 };
  }

  dispose(): void {
    // The extension is going: a run's listener that fails to close has nobody left to tell.
    this.end().catch(() => undefined);
    for (const d of this.extension.splice(0).reverse()) d.dispose();
  }
}
