// <state>/endpoints.json: workspace folder -> the endpoint of the window serving it, with the secret, so
// tools outside VS Code (the stdio shim, `mcpx tools`) find this window's gateway; the file is
// owner-only (0600; docs/security.md "The endpoint secret").
import { readFileSync } from 'node:fs';
import { defaultStateDir } from '../../config/file';
import { endpointsFile, privateDir, writePrivate } from '../../config/secret';

/** Sets (url) or removes (undefined) this window's entry; the reason it could not, or undefined. */
export function publishEndpoint(key: string, url: string | undefined, secret?: string): string | undefined {
  const dir = defaultStateDir(process.env);
  const file = endpointsFile(dir);
  try {
    privateDir(dir);
    let all: Record<string, unknown> = {};
    try {
      all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch {
      // first window
    }
    if (url) all[key] = { url, ...(secret ? { secret } : {}), pid: process.pid, at: new Date().toISOString() };
    else delete all[key];
    writePrivate(file, JSON.stringify(all, null, 2));
    return undefined;
  } catch (e) {
    return `could not write ${file}: ${(e as Error).message}`;
  }
}
