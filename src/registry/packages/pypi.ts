// A PyPI package (docs/registry.md "PyPI"): installed at its exact version into a virtual environment in
// the server's directory, with hashes — through uv where it is installed (`uv pip compile
// --generate-hashes`, then `uv pip install --require-hashes`), else pip (`pip download`, the package's
// file checked against the sha256 digests the index publishes for that release, then an install from
// those files only). It then runs as its console script from the environment, with no network.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageOrigin } from '../hosts';
import type { Package } from '../types';
import { type FetchContext, type Installed, type PackageKind, noRuntimeArguments } from './kind';

const PYPI_NAME = /^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/;
const EXACT = /^[0-9][0-9A-Za-z.+!-]*$/;

/** PEP 503's normalized name. */
const normalized = (n: string) => n.toLowerCase().replace(/[-_.]+/g, '-');

/** The sha256 digests the index publishes for one release's files (PyPI's JSON API). */
async function publishedDigests(base: string, name: string, version: string, timeoutMs: number): Promise<Set<string>> {
  const url = `${base.replace(/\/+$/, '')}/pypi/${encodeURIComponent(name)}/${encodeURIComponent(version)}/json`;
  const res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  const doc = (await res.json()) as { urls?: Array<{ digests?: { sha256?: unknown } }> };
  const out = new Set((doc.urls ?? []).map((u) => u.digests?.sha256).filter((d): d is string => typeof d === 'string'));
  if (!out.size) throw new Error(`${url} lists no files with a sha256 digest`);
  return out;
}

/** The console script the package installs: the one named like it, else its only one. */
function consoleScript(venv: string, name: string): string {
  const site = join(venv, 'lib');
  const scripts: string[] = [];
  for (const py of existsSync(site) ? readdirSync(site) : []) {
    const sp = join(site, py, 'site-packages');
    if (!existsSync(sp)) continue;
    for (const d of readdirSync(sp)) {
      if (!d.endsWith('.dist-info') || normalized(d.replace(/-[^-]+\.dist-info$/, '')) !== normalized(name)) continue;
      const ep = join(sp, d, 'entry_points.txt');
      if (!existsSync(ep)) continue;
      let inScripts = false;
      for (const line of readFileSync(ep, 'utf8').split('\n')) {
        const t = line.trim();
        if (t.startsWith('[')) inScripts = t === '[console_scripts]';
        else if (inScripts && t.includes('=')) scripts.push(t.slice(0, t.indexOf('=')).trim());
      }
    }
  }
  const pick =
    scripts.find((s) => normalized(s) === normalized(name)) ?? (scripts.length === 1 ? scripts[0] : undefined);
  if (!pick)
    throw new Error(
      `${name} installs ${scripts.length ? `several console scripts (${scripts.join(', ')})` : 'no console script'}: mcpx cannot tell which runs the server`,
    );
  return join(venv, 'bin', pick);
}

async function withUv(p: Package, c: FetchContext, venv: string, index: string): Promise<void> {
  const req = join(c.dir, 'requirements.in');
  const lock = join(c.dir, 'requirements.txt');
  writeFileSync(req, `${p.identifier}==${p.version}\n`);
  const env = { ...process.env, UV_PYTHON_DOWNLOADS: 'never' };
  const o = { cwd: c.dir, timeoutMs: c.timeoutMs, env };
  await c.run('uv', ['venv', venv], o);
  await c.run(
    'uv',
    [
      'pip',
      'compile',
      '--generate-hashes',
      '--index-url',
      index,
      '--python',
      join(venv, 'bin', 'python'),
      '--output-file',
      lock,
      req,
    ],
    o,
  );
  await c.run(
    'uv',
    ['pip', 'install', '--require-hashes', '--index-url', index, '--python', join(venv, 'bin', 'python'), '-r', lock],
    o,
  );
}

async function withPip(p: Package, c: FetchContext, venv: string, index: string, digests: Set<string>): Promise<void> {
  const files = join(c.dir, 'files');
  const o = { cwd: c.dir, timeoutMs: c.timeoutMs };
  const spec = `${p.identifier}==${p.version}`;
  await c.run('python3', ['-m', 'venv', venv], o);
  const pip = join(venv, 'bin', 'pip');
  await c.run(pip, ['download', '--dest', files, '--index-url', index, spec], o);
  // The package's own file, by its normalized name and version, checked against the index's digests.
  const stem = `${normalized(p.identifier)}-${p.version}`.replace(/-/g, '_');
  const own = readdirSync(files).filter((f) => f.toLowerCase().replace(/-/g, '_').startsWith(`${stem}_`));
  if (!own.length) throw new Error(`pip downloaded no file of ${spec}`);
  for (const f of own) {
    const sum = createHash('sha256')
      .update(readFileSync(join(files, f)))
      .digest('hex');
    if (!digests.has(sum)) throw new Error(`${f}: its sha256 ${sum} is not one the index publishes for ${spec}`);
  }
  await c.run(pip, ['install', '--no-index', '--find-links', files, spec], o);
}

export const pypi: PackageKind = {
  refuse(p) {
    if (!PYPI_NAME.test(p.identifier)) return `${JSON.stringify(p.identifier)} is not a PyPI package name`;
    if (!p.version || !EXACT.test(p.version))
      return `its PyPI version ${JSON.stringify(p.version ?? '(none)')} is not one exact version`;
    return noRuntimeArguments(p);
  },
  async fetch(p, c): Promise<Installed> {
    const base = packageOrigin(p).href.replace(/\/+$/, '');
    const index = `${base}/simple`;
    const venv = join(c.dir, 'venv');
    const spec = `${p.identifier}==${p.version}`;
    const hasUv = await c.run('uv', ['--version'], { timeoutMs: 10_000 }).then(
      () => true,
      () => false,
    );
    c.log(`installing ${spec} from ${base} (${hasUv ? 'uv' : 'pip'}, with hashes)`);
    if (hasUv) await withUv(p, c, venv, index);
    else await withPip(p, c, venv, index, await publishedDigests(base, p.identifier, p.version!, c.timeoutMs));
    const script = consoleScript(venv, p.identifier);
    return { spec, sandboxable: true, argv: (r) => ({ command: script, args: r.packageArgs }) };
  },
};
