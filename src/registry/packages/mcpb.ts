// An MCP Bundle (docs/registry.md "mcpb"): downloaded at install time, its sha256 checked against the
// `fileSha256` server.json gives (required: a bundle without one is refused) before anything of it is
// unpacked, then unpacked into the server's directory; it runs as its manifest's `server.mcp_config`
// says, `${__dirname}` being that directory.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractZip } from '../../kit/zip';
import { isObject } from '../../protocol/jsonrpc';
import type { Package } from '../types';
import { type Installed, type PackageKind, noRuntimeArguments } from './kind';

/** The largest bundle downloaded, and what it may unpack to. */
const MAX_DOWNLOAD = 256 * 1024 * 1024;
const BOUNDS = { maxEntries: 20_000, maxBytes: 1024 * 1024 * 1024 };

async function download(url: string, timeoutMs: number): Promise<Buffer> {
  const res = await fetch(url, { redirect: 'follow', signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  const reader = res.body!.getReader();
  const chunks: Uint8Array[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.byteLength;
    if (n > MAX_DOWNLOAD) {
      await reader.cancel();
      throw new Error(`${url} is larger than ${MAX_DOWNLOAD} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

interface McpConfig {
  command?: unknown;
  args?: unknown;
  env?: unknown;
}

/** The one variable a bundle's mcp_config may use: the folder it was unpacked in. */
const DIRNAME = '$' + '{__dirname}';

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

export const mcpb: PackageKind = {
  refuse(p: Package) {
    if (!p.fileSha256 || !/^[a-f0-9]{64}$/.test(p.fileSha256))
      return 'its mcpb package gives no fileSha256, so what is downloaded could not be checked';
    return noRuntimeArguments(p);
  },
  async fetch(p, c): Promise<Installed> {
    c.log(`downloading ${p.identifier}`);
    const bytes = await download(p.identifier, c.timeoutMs);
    const sum = createHash('sha256').update(bytes).digest('hex');
    if (sum !== p.fileSha256)
      throw new Error(
        `${p.identifier}: its sha256 is ${sum}, not the fileSha256 server.json gives (${p.fileSha256}); nothing was installed`,
      );
    const dir = join(c.dir, 'bundle');
    extractZip(bytes, dir, BOUNDS);
    let manifest: { server?: { mcp_config?: McpConfig } };
    try {
      manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as typeof manifest;
    } catch (e) {
      throw new Error(`the bundle has no readable manifest.json: ${(e as Error).message}`);
    }
    const cfg = manifest.server?.mcp_config ?? {};
    if (typeof cfg.command !== 'string' || (cfg.args !== undefined && !strings(cfg.args)))
      throw new Error("the bundle's manifest.json gives no server.mcp_config command (and string args)");
    const here = (v: string) => v.split(DIRNAME).join(dir);
    const env = Object.fromEntries(
      Object.entries(isObject(cfg.env) ? cfg.env : {}).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
    const all = [cfg.command, ...((cfg.args as string[] | undefined) ?? [])];
    // Its text goes into the config file, whose loader would fill any other ${…} (user_config, env).
    if (
      [...all, ...Object.values(env)].some((v) =>
        v
          .split(DIRNAME)
          .join('')
          .includes('$' + '{'),
      )
    )
      throw new Error(`the bundle's mcp_config uses variables other than ${DIRNAME}, which mcpx does not fill`);
    return {
      spec: `${p.identifier}#sha256=${sum}`,
      sandboxable: true,
      argv: (r) => ({
        command: here(all[0]!),
        args: [...all.slice(1).map(here), ...r.packageArgs],
        env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, here(v)])),
      }),
    };
  },
};
