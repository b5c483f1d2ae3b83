// The config file: servers, roots and settings. Headless reads --config FILE, else
// $XDG_CONFIG_HOME/mcpx/mcp.json, else the embedded default; the extension feeds the same loader.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { system } from '../platform';
import { type Guardrails, parseGuardrails } from './guardrails';
import { defaultConfigPath } from './paths';
import { type Permissions, parsePermissions } from './permissions';
import { type Profiles, parseProfiles } from './profiles';
import { jsonSyntaxError } from './jsonSyntax';
import { NotReadable, readRegularFileSync } from './regularFile';
import { type ConfigIssue, type ServerDef, parseServers } from './servers';
import { type LocalSkills, OWN_SKILLS, parseSkills } from './skills';
import { type SubstitutionContext, substitute } from './substitute';

export { defaultStateDir } from './paths';
export type { SubstitutionContext } from './substitute';

export interface Config {
  servers: ServerDef[];
  roots: Array<{ uri: string; name?: string }>;
  settings: Record<string, unknown>;
  issues: ConfigIssue[];
  /** The `permissions` block (docs/gateway.md "Permissions"); none allows every call. */
  permissions?: Permissions;
  /** The `guardrails` block (docs/gateway.md "Guardrails"); none screens nothing. */
  guardrails?: Guardrails;
  /** The `profiles` block (docs/gateway.md "Profiles"): named tool sets, each at its own endpoint. */
  profiles?: Profiles;
  /** The `skills` block (docs/gateway.md "Skills"): skill folders mcpx serves itself. */
  skills?: LocalSkills;
  /** Where it came from: a path, or "embedded default". */
  source: string;
}

/** The ${secret:NAME} references of a config value, to fetch before it is parsed. */
export function secretNames(v: unknown): string[] {
  const out = new Set<string>();
  const walk = (x: unknown): void => {
    if (typeof x === 'string') for (const m of x.matchAll(/\$\{secret:([^}]+)\}/g)) out.add(m[1]!);
    else if (Array.isArray(x)) x.forEach(walk);
    else if (typeof x === 'object' && x !== null) Object.values(x).forEach(walk);
  };
  walk(v);
  return [...out];
}

export function parseConfig(value: unknown, source: string, ctx: SubstitutionContext): Config {
  const issues: ConfigIssue[] = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { servers: [], roots: [], settings: {}, issues: [{ path: '', message: 'expected a JSON object' }], source };
  }
  const file = substitute(value, ctx, '', issues) as Record<string, unknown>;
  const { servers, issues: serverIssues } = parseServers(file);
  issues.push(...serverIssues);
  const roots: Config['roots'] = [];
  if (Array.isArray(file.roots)) {
    file.roots.forEach((r, i) => {
      // A path as the system writes it (~, C:\\…, %VAR%), as the URI VS Code gives a folder (file:///c%3A/…).
      if (typeof r === 'string')
        roots.push({
          uri: r.startsWith('file://') ? r : system.fileUri(system.expandPath(r, ctx.env, homedir(), process.cwd())),
        });
      else if (r && typeof r === 'object' && typeof (r as { uri?: unknown }).uri === 'string')
        roots.push(r as { uri: string; name?: string });
      else issues.push({ path: `roots.${i}`, message: 'expected a path or {uri, name}' });
    });
  } else if (file.roots !== undefined) issues.push({ path: 'roots', message: 'expected an array' });
  let settings: Record<string, unknown> = {};
  if (file.settings !== undefined) {
    if (typeof file.settings === 'object' && file.settings !== null && !Array.isArray(file.settings))
      settings = file.settings as Record<string, unknown>;
    else issues.push({ path: 'settings', message: 'expected an object' });
  }
  const { permissions, issues: permissionIssues } = parsePermissions(file.permissions);
  issues.push(...permissionIssues);
  const { guardrails, issues: guardrailIssues } = parseGuardrails(file.guardrails);
  issues.push(...guardrailIssues);
  const names = servers.map((s) => s.name);
  const { skills, issues: skillIssues } = parseSkills(file.skills, names, ctx);
  issues.push(...skillIssues);
  // A profile may offer mcpx's own skills as it offers a server's (by the source's name).
  const { profiles, issues: profileIssues } = parseProfiles(
    file.profiles,
    skills ? [...names, OWN_SKILLS] : names,
    guardrails?.detectors,
  );
  issues.push(...profileIssues);
  return {
    servers,
    roots,
    settings,
    issues,
    source,
    ...(permissions ? { permissions } : {}),
    ...(guardrails ? { guardrails } : {}),
    ...(profiles.size ? { profiles } : {}),
    ...(skills ? { skills } : {}),
  };
}

/** A config file is written by a person: past this it is not one. */
const MAX_BYTES = 4 * 1024 * 1024;

/** The embedded default: no upstreams; the gateway's own tools only. */
const DEFAULT_CONFIG = { servers: {} };

/** Read a config file. A missing explicit file is an error; a missing default one is the embedded default. */
export function loadConfig(path: string | undefined, ctx: SubstitutionContext): Config {
  const p = path ?? defaultConfigPath(ctx.env);
  if (!existsSync(p)) {
    if (path !== undefined) throw new Error(`config file not found: ${path}`);
    return parseConfig(DEFAULT_CONFIG, 'embedded default', ctx);
  }
  const read = readJsonFile(p);
  if ('problem' in read)
    return { servers: [], roots: [], settings: {}, issues: [{ path: '', message: read.problem }], source: p };
  return parseConfig(read.value, p, ctx);
}

/** A config file's JSON, or why not: not a regular file (./regularFile.ts), unreadable, or not JSON at
 *  a line and column. The problem never quotes the file's text: JSON.parse's own message does (a token
 *  pasted without quotes, a line of another file the path is a link to), and the problem reaches an HTTP
 *  body (/v1/reload), `mcpx reload` and the log. */
export function readJsonFile(path: string): { value: unknown } | { problem: string } {
  let text: string;
  try {
    text = readRegularFileSync(path, MAX_BYTES);
  } catch (e) {
    if (e instanceof NotReadable) return { problem: e.message };
    return { problem: `${path} could not be read (${(e as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  // A byte order mark is not JSON, but editors write one.
  if (text.startsWith('\ufeff')) text = text.slice(1);
  try {
    return { value: JSON.parse(text) };
  } catch {
    const at = jsonSyntaxError(text);
    return {
      problem: `${path} is not valid JSON${at ? ` at line ${at.line}, column ${at.column}: ${at.problem}` : ''}`,
    };
  }
}
