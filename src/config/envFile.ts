// An envFile of a server definition: KEY=VALUE lines, `#` comments, an optional `export`, values
// optionally quoted. Read when a stdio upstream starts (its environment) and by the redaction (its values
// are secrets to mask) — only a regular file, never waiting on one (./regularFile.ts): a named pipe there
// fails that server's start, naming what it is, and nothing else.
import { readRegularFile, readRegularFileSync } from './regularFile';

/** An envFile is a few lines: one past this is not one. */
const MAX_BYTES = 1024 * 1024;

function parse(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)\s*$/.exec(line);
    if (!m || line.trim().startsWith('#')) continue;
    out[m[1]!] = m[2]!.replace(/^(['"])(.*)\1$/, '$2');
  }
  return out;
}

export function readEnvFile(path: string): Record<string, string> {
  return parse(readRegularFileSync(path, MAX_BYTES));
}

/** readEnvFile off the event loop: a server's start. */
export async function loadEnvFile(path: string): Promise<Record<string, string>> {
  return parse(await readRegularFile(path, MAX_BYTES));
}
