// One subcommand of `mcpx` as the dispatcher (src/cli.ts) sees it: its lines in the usage, the flags it
// takes (src/cli/args.ts), and what it runs. The usage text is made from these declarations, so what
// `mcpx help` shows is what the parser accepts.
import type { Args, FlagName } from './args';

/** A synopsis (what follows `mcpx `) and what it does, one line each: the lines are written as given. */
export type Usage = readonly [synopsis: string, ...what: string[]];

export interface Command {
  readonly usage: readonly Usage[];
  readonly flags: readonly FlagName[];
  /** It takes positional arguments (a verb, a server, a tool, a URI…); otherwise one is refused. */
  readonly positional?: boolean;
  run(a: Args): Promise<void>;
}

/** The column where what an entry does starts. */
const COLUMN = 53;

/** Usage entries as text: each synopsis with what it does beside it (below it, when it is too long for
 *  the column), then the notes (of the flags the entries take), each once. */
export function usageText(usages: readonly Usage[], notes: readonly (readonly string[])[] = []): string {
  const lines = ['usage:'];
  for (const [synopsis, ...what] of usages) {
    const head = `  mcpx ${synopsis}`;
    if (what.length && head.length + 2 <= COLUMN) lines.push(`${head.padEnd(COLUMN)}${what.shift()}`);
    else lines.push(head);
    for (const w of what) lines.push(`${' '.repeat(COLUMN)}${w}`);
  }
  for (const note of notes) for (const w of note) lines.push(`${' '.repeat(COLUMN)}${w}`);
  return lines.join('\n');
}
