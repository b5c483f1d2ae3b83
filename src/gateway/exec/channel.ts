// The exec child's own channel to the gateway (docs/exec.md "The channel"): newline-delimited JSON on
// the child's stdin and stdout, nothing else. One module, imported by both ends, so the two cannot
// drift: the messages, and how output is counted against exec.maxOutputBytes (the child counts before
// it writes anything, the gateway counts again what it reads). It imports nothing: the child bundle
// (child.ts) holds nothing else of the project.

/** What a script may ask the gateway for: `call` (mcpx.call), `typed` (mcpx.servers.<s>.<t>, names as
 *  identifiers), `read` (mcpx.read), `prompt` (mcpx.prompt). */
export type ExecOp = 'call' | 'typed' | 'read' | 'prompt';

export type ToChild =
  | { t: 'start'; script: string; maxOutputBytes: number; maxConcurrent: number }
  | { t: 'reply'; id: number; ok: true; value: unknown }
  | { t: 'reply'; id: number; ok: false; error: string };

export type FromChild =
  /** The sandbox is in force (the child checked its own permissions) and it waits for `start`. */
  | { t: 'ready'; pid: number }
  | { t: 'req'; id: number; op: ExecOp; args: unknown[] }
  /** A log line as the client is shown it (logLine), within what is left of the bound. */
  | { t: 'log'; line: string }
  | { t: 'done'; ok: true; value: unknown }
  /** The script threw: what the client is shown (its message, the script's frames). */
  | { t: 'done'; ok: false; text: string }
  /** The script's output passed exec.maxOutputBytes: the child sent what fit and stopped the script. */
  | { t: 'over' }
  /** The child cannot run the script at all (the sandbox is not in force, a bad message). */
  | { t: 'fatal'; message: string };

/** The file name a script's stack frames carry (docs/exec.md "Errors"). */
export const SCRIPT_FILE = 'mcpx-script.js';

/** A log line as the client is shown it: `info` bare, other levels prefixed. */
export const logLine = (level: string, text: string): string => (level === 'info' ? text : `[${level}] ${text}`);

/** What a log line (or a thrown error's text) counts against exec.maxOutputBytes: its JSON string and
 *  the comma after it, as in the `logs` array the client gets (docs/exec.md "Bounds"). The value counts
 *  its JSON's bytes. */
const textBytes = (s: string): number => Buffer.byteLength(JSON.stringify(s)) + 1;

/** The start of `s` that counts at most `budget` bytes ('' when not even an empty line fits). Never
 *  measures more than `budget` characters of it: every character counts at least a byte. */
function cut(s: string, budget: number): string {
  // Half a surrogate pair left at the end would count 6 bytes (its \u escape) where the pair counted 4.
  const to = (n: number): string => {
    const c = s.charCodeAt(n - 1);
    return s.slice(0, c >= 0xd800 && c <= 0xdbff ? n - 1 : n);
  };
  let out = s.length > budget ? to(budget) : s;
  for (let over = textBytes(out) - budget; over > 0 && out; over = textBytes(out) - budget)
    out = to(Math.max(0, out.length - over));
  return textBytes(out) <= budget ? out : '';
}

export const outputPassed = (max: number): string =>
  `the script's output passed ${max} bytes (exec.maxOutputBytes); it was stopped`;

export const tooManyInFlight = (max: number): string =>
  `the script already has ${max} requests in flight (exec.maxConcurrent); await some first`;

export const requestTooLarge = (max: number): string => `the request is larger than ${max} bytes (exec.maxOutputBytes)`;

/** What is left of exec.maxOutputBytes, counted as the output is produced (docs/exec.md "Bounds"). */
export class Budget {
  private used = 0;

  constructor(readonly max: number) {}

  /** A log line (or a thrown error's text): all of it when it fits, else the start of it that does
   *  (`whole` false: the output passed the bound). */
  take(line: string): { part: string; whole: boolean } {
    const left = this.max - this.used;
    // Every character counts at least a byte, and the quotes and comma three more: a line this long
    // cannot fit, and is not measured whole.
    if (line.length + 3 <= left) {
      const n = textBytes(line);
      if (n <= left) {
        this.used += n;
        return { part: line, whole: true };
      }
    }
    const part = cut(line, left);
    if (part) this.used += textBytes(part);
    return { part, whole: false };
  }

  /** The returned value's JSON: whether it fits. */
  takeJson(json: string): boolean {
    const left = this.max - this.used;
    if (json.length > left) return false;
    const n = Buffer.byteLength(json);
    if (n > left) return false;
    this.used += n;
    return true;
  }
}
