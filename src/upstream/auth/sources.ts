// An identity token from where the server's definition says (docs/gateway.md "Signing in to upstreams"):
// a file, an environment variable, or a command's standard output — read afresh for every grant, as a
// workload's token is short-lived and rotated in place. What was read is a credential: it never reaches
// a log line or an error message; a failure names the source only.
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { system } from '../../platform';
import { AuthError } from './errors';

export type TokenSource = { file: string } | { env: string } | { command: string; args?: string[] };

/** A token is one line of printable ASCII (a JWT, a SAML assertion in base64); more than this is not one. */
const MAX_BYTES = 64 * 1024;
const COMMAND_TIMEOUT_MS = 30_000;

export function describeSource(s: TokenSource): string {
  if ('file' in s) return `the file ${s.file}`;
  if ('env' in s) return `the environment variable ${s.env}`;
  return `the command ${s.command}`;
}

/** The token, trimmed; an AuthError naming the source when there is none. */
export async function readToken(s: TokenSource, what: string): Promise<string> {
  let raw: string | undefined;
  try {
    if ('file' in s) raw = await readFile(system.expandPath(s.file, process.env, homedir(), process.cwd()), 'utf8');
    else if ('env' in s) raw = process.env[s.env];
    else raw = await commandOutput(s.command, s.args ?? []);
  } catch (e) {
    throw new AuthError(`${what} could not be read from ${describeSource(s)}: ${(e as Error).message}`);
  }
  const token = raw?.trim();
  if (!token) throw new AuthError(`${what}: ${describeSource(s)} is empty or unset`);
  if (token.length > MAX_BYTES || /[^\x21-\x7e]/.test(token))
    throw new AuthError(`${what}: ${describeSource(s)} does not hold one token (one line, at most 64 KiB)`);
  return token;
}

/** The standard output of a command started without a shell and guarded as an upstream is (nothing it
 *  starts outlives mcpx), bounded in time and size. Its standard error is read and dropped: a tool that
 *  prints the token there too would put it in an error message. */
function commandOutput(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = system.spawnGuarded({ command, args, env: process.env });
    child.stdin?.end();
    let out = '';
    let failed: string | undefined;
    const stop = (why: string) => {
      failed ??= why;
      void system.killTree(child, 0);
    };
    const timer = setTimeout(() => stop(`no answer within ${COMMAND_TIMEOUT_MS / 1000} s`), COMMAND_TIMEOUT_MS);
    child.stdout?.on('data', (b: Buffer) => {
      out += b.toString('utf8');
      if (out.length > MAX_BYTES) stop('it printed more than 64 KiB');
    });
    child.stderr?.resume();
    child.on('error', (e: NodeJS.ErrnoException) => {
      failed ??= e.code === 'ENOENT' ? 'not found on PATH' : e.message;
    });
    child.on('close', (code: number | null) => {
      clearTimeout(timer);
      // 127: the POSIX shell's "command not found" (the guard starts it through sh).
      if (failed) reject(new Error(failed));
      else if (code === 127) reject(new Error('not found on PATH (status 127)'));
      else if (code !== 0) reject(new Error(`it exited with status ${code}`));
      else resolve(out);
    });
  });
}
