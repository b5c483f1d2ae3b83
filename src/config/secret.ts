// The endpoint secret (docs/security.md "The endpoint secret"): 32 random bytes, base64url, one per
// install, created on first need in the state directory and kept owner-only (0600). Loopback is not a
// boundary — other local users and any web page can reach a port — so /mcp and /v1 serve only requests
// that carry it. Its value is never logged and never put in an error message.
import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { system } from '../platform';

/** <state>/endpoint-secret. */
export function secretFile(stateDir: string): string {
  return join(stateDir, 'endpoint-secret');
}

/** <state>/endpoints.json: the endpoint of each editor window, secret included (owner-only). */
export function endpointsFile(stateDir: string): string {
  return join(stateDir, 'endpoints.json');
}

const WELL_FORMED = /^[A-Za-z0-9_-]{43}$/;

/** A fresh secret: 32 random bytes, base64url. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** The secret stored at `stateDir`, or undefined when there is none (never creates one). */
export function readSecret(stateDir: string): string | undefined {
  try {
    const s = readFileSync(secretFile(stateDir), 'utf8').trim();
    return WELL_FORMED.test(s) ? s : undefined;
  } catch {
    return undefined;
  }
}

/** The install's secret: read from `stateDir`, or created there (0600) on first need. Two processes
 *  starting together agree: the file appears whole and only once (a link of a written temporary file),
 *  and the loser reads the winner's. */
export function endpointSecret(stateDir: string): string {
  privateDir(stateDir);
  const file = secretFile(stateDir);
  const existing = readSecret(stateDir);
  if (existing !== undefined) {
    // Kept owner-only even if something widened it.
    system.ownerOnlyFile(file);
    return existing;
  }
  const s = newSecret();
  const tmp = `${file}.${process.pid}.tmp`;
  writeOwnerOnly(tmp, `${s}\n`);
  try {
    linkSync(tmp, file);
    return s;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    const other = readSecret(stateDir);
    if (other !== undefined) return other;
    // A file there that is not a secret (empty, truncated) is replaced. Another process may replace it
    // at the same time: whichever rename came last is on disk, and that is the secret both return.
    renameSync(tmp, file);
    const onDisk = readSecret(stateDir);
    if (onDisk === undefined) throw new Error(`could not write the endpoint secret to ${file}`);
    return onDisk;
  } finally {
    rmSync(tmp, { force: true });
  }
}

function writeOwnerOnly(file: string, text: string): void {
  const fd = openSync(file, 'w', 0o600);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  // openSync's mode applies only to a file it creates: a leftover one is narrowed too.
  system.ownerOnlyFile(file);
}

/** Write a file owner-only (0600), atomically (a temporary file renamed over it). */
export function writePrivate(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeOwnerOnly(tmp, text);
  renameSync(tmp, file);
}

/** The secret `mcpx elicit` sends to `endpoint`: the one in its /mcp/<secret> path, else the install's —
 *  but the install's only to a loopback host (127.0.0.0/8, ::1, localhost), so an --endpoint naming
 *  another host never receives it (docs/security.md "The endpoint secret"). */
export function elicitSecret(endpoint: URL, stored: () => string | undefined): string | undefined {
  const inPath = /^\/mcp\/([^/]+)$/.exec(endpoint.pathname)?.[1];
  if (inPath !== undefined) return inPath;
  const host = endpoint.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const loopback = host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
  return loopback ? stored() : undefined;
}

/** An endpoint as it may be shown or logged: the /mcp/<secret> path without its secret. */
export function withoutSecret(endpoint: string): string {
  return endpoint.replace(/\/mcp\/[^/?#]+/, '/mcp/<secret>');
}

/** The state directory, made owner-only — 0700, or on Windows an access list granting its owner alone —
 *  one that exists narrowed too (docs/security.md "The endpoint secret", docs/platforms.md). */
export function privateDir(dir: string): void {
  system.ownerOnlyDir(dir);
}
