// Installing one version of a registry server (docs/registry.md): its status and name checked, one way
// chosen (choice.ts), its inputs rendered (inputs.ts), its package fetched at install time into
// `<state>/servers/<local>/<version>/` (packages/), and the server entry built — exact version,
// provenance, secrets as references, sandboxed where the platform has the sandbox. Writing the entry is
// the caller's (the config file headless, the settings in the editor); the secrets go to the store given.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonObject } from '../protocol/jsonrpc';
import { lookalikes } from './checks';
import { type Choice, choose, postInstallInstructions } from './choice';
import type { RegistryClient } from './client';
import { InputError, type Need, Renderer, packageNeeds, remoteNeeds } from './inputs';
import { type Installed, type Run, runCommand } from './packages/kind';
import type { RegistryEntry } from './types';

/** A refusal of install: printed as it is, nothing installed. */
export class InstallRefused extends Error {
  override name = 'InstallRefused';
}

/** The local name a registry name gets by default: its last segment (`io.github.x/weather` → `weather`). */
export const localNameOf = (name: string) => name.slice(name.lastIndexOf('/') + 1).replace(/[^\w.-]+/g, '-');

/** `NAME[@VERSION]`: the name, and the version (undefined: the latest). */
export function parseNameAtVersion(arg: string): { name: string; version?: string } {
  const at = arg.lastIndexOf('@');
  return at > 0 ? { name: arg.slice(0, at), version: arg.slice(at + 1) || undefined } : { name: arg };
}

/** The secret store's name of one input's value. */
const secretNameOf = (local: string, key: string) => `${local}.${key}`;

/** Where each installed server's files live under mcpx's state. */
const serversDir = (stateDir: string) => join(stateDir, 'servers');

/** A name that is one path segment of its own (a local name, a version): never `.`, `..` or a slash. */
const SEGMENT = /^(?!\.+$)[\w.+-]+$/;
function segment(v: string, what: string): string {
  if (!SEGMENT.test(v)) throw new InstallRefused(`${what} ${JSON.stringify(v)} is not usable as a folder name`);
  return v;
}

/** What install needs of its host. */
export interface InstallPorts {
  stateDir: string;
  secrets: { set(key: string, value: string): Promise<void> };
  /** Undefined when the platform's sandbox can run here; else why not. */
  sandboxAvailable(): Promise<string | undefined>;
  /** registry.packageHosts. */
  extraHosts: readonly string[];
  log(line: string): void;
  /** A warning, said as soon as it is known (a refusal may follow). */
  warn(line: string): void;
  run?: Run;
  /** The longest a download or an install command may take. */
  fetchTimeoutMs?: number;
}

export interface InstallRequest {
  client: RegistryClient;
  entry: RegistryEntry;
  local: string;
  /** The person's values by input key (`--env KEY=VALUE`, the editor's boxes). */
  values: ReadonlyMap<string, readonly string[]>;
  /** Secret inputs whose values are already in the store under this local name (an update). */
  keptSecrets?: ReadonlySet<string>;
  sandbox: boolean;
  /** Deprecated servers are installed only when this is said. */
  yes: boolean;
  /** The caller has screened the entry already (the editor asks before the inputs). */
  screened?: boolean;
}

export interface InstallResult {
  def: JsonObject;
  warnings: string[];
  /** postInstallInstructions: to show, never to run. */
  instructions: string[];
  /** One line saying what was installed and how it runs. */
  summary: string;
}

/** What is refused or warned of an entry before anything is fetched (its status, its name); each warning
 *  said through `warn` as it is found. */
export async function screen(
  client: RegistryClient,
  entry: RegistryEntry,
  yes: boolean,
  warn: (line: string) => void,
): Promise<string[]> {
  const s = entry.server;
  const o = entry.official;
  const because = o.statusMessage ? `: ${o.statusMessage}` : '';
  if (o.status === 'deleted') throw new InstallRefused(`${s.name}@${s.version} is deleted from the registry${because}`);
  if (/^latest$|[\^~*<>=| ]|\.x(\.|$)/i.test(s.version))
    throw new InstallRefused(`${s.name}: its version ${JSON.stringify(s.version)} is not one exact version`);
  const warnings: string[] = [];
  const say = (w: string) => {
    warnings.push(w);
    warn(w);
  };
  if (o.status === 'deprecated') {
    const w = `${s.name}@${s.version} is deprecated${because}`;
    if (!yes) throw new InstallRefused(`${w}; install it anyway with --yes`);
    say(w);
  }
  const near = await lookalikes(client, entry);
  if (near.length)
    say(
      `${s.name} is a small edit away from ${near.join(', ')}, published before it in the same registry: make sure it is the one you mean`,
    );
  return warnings;
}

/** The inputs the chosen way asks for (for the editor's boxes and the headless check). */
export function needsOf(choice: Choice): Need[] {
  return choice.kind === 'package' ? packageNeeds(choice.pkg) : remoteNeeds(choice.remote);
}

/** The way `entry` installs here, or a refusal naming why each way is not. */
export function chosen(entry: RegistryEntry, extraHosts: readonly string[]): Choice {
  const { choice, skipped } = choose(entry.server, extraHosts);
  if (!choice) throw new InstallRefused(`${entry.server.name} cannot be installed: ${skipped.join('; ')}`);
  return choice;
}

function render(req: InstallRequest, choice: Choice, needs: Need[]): Renderer {
  let r: Renderer;
  try {
    r = new Renderer(needs, req.values, (key) => secretNameOf(req.local, key), req.keptSecrets);
    if (choice.kind === 'package') {
      r.arguments(choice.pkg.runtimeArguments ?? [], r.r.runtimeArgs, 'runtime argument');
      r.arguments(choice.pkg.packageArguments ?? [], r.r.packageArgs, 'argument');
      r.environment(choice.pkg.environmentVariables ?? []);
    } else {
      r.r.url = r.fill(choice.remote.url, choice.remote.variables, 'the remote URL');
      r.headers(choice.remote.headers ?? []);
    }
  } catch (e) {
    if (e instanceof InputError) throw new InstallRefused(`${req.entry.server.name}: ${e.message}`);
    throw e;
  }
  if (r.r.missing.length)
    throw new InstallRefused(
      `${req.entry.server.name} needs ${r.r.missing.map((m) => `${m.key} (${m.where}${m.secret ? ', secret' : ''}${m.description ? `: ${m.description}` : ''})`).join(', ')}: give ${r.r.missing.length > 1 ? 'them' : 'it'} with --env KEY=VALUE`,
    );
  return r;
}

/** A remote's URL, once filled: https, or http to a loopback host. */
function remoteUrl(url: string | undefined, name: string): string {
  let u: URL;
  try {
    u = new URL(url ?? '');
  } catch {
    throw new InstallRefused(`${name}: its remote URL ${JSON.stringify(url)} is not a URL once filled`);
  }
  const loopback = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(u.hostname);
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && loopback))
    throw new InstallRefused(`${name}: its remote URL ${u.href} is not https`);
  return u.href;
}

/** The hosts a sandboxed server may reach: those of the server's remotes (the service it fronts). */
function remoteHosts(entry: RegistryEntry): string[] {
  const hosts = (entry.server.remotes ?? []).flatMap((r) => {
    try {
      return r.url && !r.url.includes('{') ? [new URL(r.url).host] : [];
    } catch {
      return [];
    }
  });
  return [...new Set(hosts)];
}

/** Fetches the package into a fresh `<state>/servers/<local>/<version>/`; removed again on failure. */
async function fetchPackage(req: InstallRequest, choice: Choice & { kind: 'package' }, ports: InstallPorts) {
  const dir = join(
    serversDir(ports.stateDir),
    segment(req.local, 'the local name'),
    segment(req.entry.server.version, 'the version'),
  );
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    return await choice.fetcher.fetch(choice.pkg, {
      dir,
      run: ports.run ?? runCommand,
      extraHosts: ports.extraHosts,
      timeoutMs: ports.fetchTimeoutMs ?? 600_000,
      log: ports.log,
    });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw new InstallRefused(`${req.entry.server.name}: ${(e as Error).message}`);
  }
}

/** The other versions' directories of a server, removed once the entry names the new one. */
export function pruneVersions(stateDir: string, local: string, keep?: string): void {
  if (!SEGMENT.test(local)) return;
  const dir = join(serversDir(stateDir), local);
  let versions: string[];
  try {
    versions = readdirSync(dir);
  } catch {
    return;
  }
  for (const v of versions) if (v !== keep) rmSync(join(dir, v), { recursive: true, force: true });
  if (keep === undefined) rmSync(dir, { recursive: true, force: true });
}

async function sandboxOf(
  req: InstallRequest,
  installed: Installed,
  ports: InstallPorts,
  warn: (line: string) => void,
): Promise<JsonObject | boolean | undefined> {
  if (!req.sandbox) return false;
  if (!installed.sandboxable) return undefined;
  const why = await ports.sandboxAvailable();
  if (why !== undefined) {
    warn(`not sandboxed: ${why}`);
    return undefined;
  }
  const hosts = remoteHosts(req.entry);
  return hosts.length ? { network: { hosts } } : true;
}

/** Installs one version: screened, rendered, fetched, its secrets stored; the entry to write returned. */
export async function install(req: InstallRequest, ports: InstallPorts): Promise<InstallResult> {
  const s = req.entry.server;
  const warnings = req.screened ? [] : await screen(req.client, req.entry, req.yes, ports.warn);
  const warn = (w: string) => {
    warnings.push(w);
    ports.warn(w);
  };
  const choice = chosen(req.entry, ports.extraHosts);
  const rendered = render(req, choice, needsOf(choice)).r;
  const provenance: JsonObject = {
    name: s.name,
    version: s.version,
    url: req.client.base,
    ...(Object.keys(rendered.inputs).length ? { inputs: rendered.inputs } : {}),
    ...(rendered.secretKeys.size ? { secrets: [...rendered.secretKeys] } : {}),
  };
  let def: JsonObject;
  let summary: string;
  if (choice.kind === 'remote') {
    const url = remoteUrl(rendered.url, s.name);
    def = {
      type: choice.remote.type === 'sse' ? 'sse' : 'http',
      url,
      ...(Object.keys(rendered.headers).length ? { headers: rendered.headers } : {}),
      registry: provenance,
    };
    summary = `${s.name}@${s.version}: the remote server at ${url}`;
  } else {
    const installed = await fetchPackage(req, choice, ports);
    if (installed.mcpName !== undefined && installed.mcpName !== s.name)
      warn(`the package ${installed.spec} says it is ${JSON.stringify(installed.mcpName)}, not ${s.name}`);
    const run = installed.argv(rendered);
    const sandbox = await sandboxOf(req, installed, ports, warn);
    const env = { ...run.env, ...rendered.env };
    def = {
      type: 'stdio',
      command: run.command,
      args: run.args,
      ...(Object.keys(env).length ? { env } : {}),
      ...(sandbox !== undefined ? { sandbox } : {}),
      registry: { ...provenance, package: `${choice.pkg.registryType}:${installed.spec}` },
    };
    summary = `${s.name}@${s.version}: ${choice.pkg.registryType} ${installed.spec}${sandbox ? ', sandboxed' : sandbox === false ? ', not sandboxed (--no-sandbox)' : ''}`;
  }
  for (const [name, value] of Object.entries(rendered.secrets)) await ports.secrets.set(name, value);
  return { def, warnings, instructions: postInstallInstructions(s), summary };
}
