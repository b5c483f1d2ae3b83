// `mcpx registry search|show|outdated` (docs/registry.md): what an MCP Registry holds — a search with its
// pages, one server's details and versions — and which installed servers have a newer version. Every
// text from the registry is printed through `printable`.
import type { JsonObject } from '../protocol/jsonrpc';
import { howItRuns } from '../registry/choice';
import { RegistryError } from '../registry/client';
import { entries } from '../registry/configFile';
import { chosen, needsOf, parseNameAtVersion } from '../registry/install';
import type { RegistryEntry } from '../registry/types';
import { provenanceOf } from '../registry/update';
import { type Args, UsageError } from './args';
import type { Command } from './command';
import { printable } from '../kit/printable';
import { out, table } from './output';
import { type RegistryContext, clientOf, lines, registryContext, sayIfStale } from './registryParts';

export const registry: Command = {
  usage: [
    ['registry search QUERY [--json] [--registry URL]', 'servers of the MCP Registry (registry.url) matching it'],
    ['registry show NAME[@VERSION] [--json]', "a server's details, inputs and versions"],
    ['registry outdated [--config FILE] [--json]', 'installed servers with a newer version'],
  ],
  flags: ['json', 'registry', 'config'],
  positional: true,
  run,
};

/** The most results a search prints (followed across the registry's pages). */
const MAX_RESULTS = 100;

async function run(a: Args): Promise<void> {
  const [verb, arg, extra] = a.positional;
  const c = registryContext(a);
  if (verb === 'outdated') {
    if (arg !== undefined) throw new UsageError(`mcpx registry outdated: unexpected argument ${JSON.stringify(arg)}`);
    return outdated(c, a);
  }
  if (verb !== 'search' && verb !== 'show')
    throw new UsageError(
      verb === undefined
        ? 'mcpx registry needs search QUERY, show NAME or outdated'
        : `mcpx registry: expected search, show or outdated, got ${JSON.stringify(verb)}`,
    );
  if (arg === undefined) throw new UsageError(`mcpx registry ${verb} needs a ${verb === 'search' ? 'QUERY' : 'NAME'}`);
  if (extra !== undefined) throw new UsageError(`mcpx registry ${verb}: unexpected argument ${JSON.stringify(extra)}`);
  return verb === 'search' ? search(c, arg, a.json === true) : show(c, arg, a.json === true);
}

const rawOf = (e: RegistryEntry): JsonObject => ({
  server: e.server,
  _meta: { 'io.modelcontextprotocol.registry/official': e.official },
});

async function search(c: RegistryContext, query: string, json: boolean): Promise<void> {
  const client = clientOf(c);
  const found: RegistryEntry[] = [];
  let cursor: string | undefined;
  let more = false;
  do {
    const page = await client.search(query, { cursor, limit: 50 });
    sayIfStale(page);
    for (const s of page.value.skipped) process.stderr.write(`mcpx: skipped an entry: ${printable(s)}\n`);
    found.push(...page.value.entries);
    cursor = page.value.nextCursor;
    more = cursor !== undefined && found.length >= MAX_RESULTS;
  } while (cursor && !more);
  const shown = found.slice(0, MAX_RESULTS);
  if (json) return out(JSON.stringify({ servers: shown.map(rawOf), more: more || found.length > MAX_RESULTS }));
  if (!shown.length) return out(`nothing in ${client.base} matches ${printable(JSON.stringify(query))}`);
  out(
    table([
      ['NAME', 'VERSION', 'RUNS', 'STATUS', 'DESCRIPTION'],
      ...shown.map((e) => [
        e.server.name,
        e.server.version,
        howItRuns(e.server).join(',') || '-',
        e.official.status,
        (e.server.description ?? '').slice(0, 80),
      ]),
    ]),
  );
  if (more || found.length > MAX_RESULTS) out(`(the first ${MAX_RESULTS}; narrow the search for the rest)`);
}

async function show(c: RegistryContext, arg: string, json: boolean): Promise<void> {
  const { name, version } = parseNameAtVersion(arg);
  const client = clientOf(c);
  const got = await client.version(name, version);
  sayIfStale(got);
  const versions = await client.versions(name).then(
    (v) => v.value,
    () => [],
  );
  if (json) return out(JSON.stringify({ ...rawOf(got.value), versions: versions.map((v) => v.server.version) }));
  const { server: s, official: o } = got.value;
  const row = (k: string, v: string | undefined) => v && out(`${k.padEnd(12)}${printable(v)}`);
  row('name', s.name);
  row('title', s.title);
  row('version', `${s.version}${o.isLatest ? ' (latest)' : ''}`);
  row('status', `${o.status}${o.statusMessage ? `: ${o.statusMessage}` : ''}`);
  row('published', o.publishedAt);
  row('updated', o.updatedAt);
  row('repository', s.repository?.url);
  row('website', s.websiteUrl);
  if (s.description) for (const l of lines(s.description)) out(`  ${l}`);
  out('runs');
  for (const p of s.packages ?? [])
    out(`  ${printable(`${p.registryType} ${p.identifier}${p.version ? `@${p.version}` : ''} (${p.transport.type})`)}`);
  for (const r of s.remotes ?? []) out(`  ${printable(`remote ${r.type} ${r.url ?? ''}`)}`);
  try {
    const needs = needsOf(chosen(got.value, c.settings.get<string[]>('registry.packageHosts')));
    if (needs.length) out('inputs (mcpx install … --env KEY=VALUE)');
    for (const n of needs)
      out(
        `  ${printable(`${n.key}${n.required ? ' (required)' : ''}${n.secret ? ' (secret)' : ''}: ${n.where}${n.description ? ` — ${n.description}` : ''}${n.default !== undefined ? ` [default ${n.default}]` : ''}`)}`,
      );
  } catch (e) {
    out(`not installable here: ${printable((e as Error).message)}`);
  }
  if (versions.length) out(`versions    ${printable(versions.map((v) => v.server.version).join(', '))}`);
}

/** Installed entries (with registry provenance) whose registry's latest version is another. */
async function outdated(c: RegistryContext, a: Args): Promise<void> {
  const rows: Array<{ local: string; name: string; installed: string; latest: string; status: string }> = [];
  const problems: string[] = [];
  for (const [local, def] of Object.entries(entries(c.file))) {
    const p = provenanceOf(def);
    if (!p) continue;
    try {
      const latest = await clientOf(c, a.flags['registry.url'] === undefined ? p.url : undefined).version(p.name);
      sayIfStale(latest);
      const v = latest.value;
      if (v.server.version !== p.version)
        rows.push({ local, name: p.name, installed: p.version, latest: v.server.version, status: v.official.status });
    } catch (e) {
      if (!(e instanceof RegistryError)) throw e;
      problems.push(`${local}: ${e.message}`);
    }
  }
  for (const p of problems) process.stderr.write(`mcpx: ${printable(p)}\n`);
  if (a.json) return out(JSON.stringify({ outdated: rows }));
  if (!rows.length)
    return out(
      problems.length
        ? 'no newer version found (some could not be checked)'
        : 'every installed server is at its latest version',
    );
  out(
    table([
      ['LOCAL', 'NAME', 'INSTALLED', 'LATEST', 'STATUS'],
      ...rows.map((r) => [r.local, r.name, r.installed, r.latest, r.status]),
    ]),
  );
  out('update one with: mcpx update LOCAL');
}
