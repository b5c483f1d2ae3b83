// The exec child's own channel to the gateway (docs/exec.md "The channel"): newline-delimited JSON on
// the child's stdin and stdout, nothing else. One module, imported by both ends, so the two cannot
// drift. Plain data only: the child bundle (child.ts) imports nothing else of the project.

/** What a script may ask the gateway for: `call` (mcpx.call), `typed` (mcpx.servers.<s>.<t>, names as
 *  identifiers), `read` (mcpx.read), `prompt` (mcpx.prompt). */
export type ExecOp = 'call' | 'typed' | 'read' | 'prompt';

export type ToChild =
  | { t: 'start'; script: string }
  | { t: 'reply'; id: number; ok: true; value: unknown }
  | { t: 'reply'; id: number; ok: false; error: string };

export type FromChild =
  /** The sandbox is in force (the child checked its own permissions) and it waits for `start`. */
  | { t: 'ready'; pid: number }
  | { t: 'req'; id: number; op: ExecOp; args: unknown[] }
  | { t: 'log'; level: string; text: string }
  | { t: 'done'; ok: true; value: unknown }
  | { t: 'done'; ok: false; message: string; stack: string }
  /** The child cannot run the script at all (the sandbox is not in force, a bad message). */
  | { t: 'fatal'; message: string };

/** The file name a script's stack frames carry (docs/exec.md "Errors"). */
export const SCRIPT_FILE = 'mcpx-script.js';
