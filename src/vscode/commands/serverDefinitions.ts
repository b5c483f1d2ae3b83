// Where Add Server… saves a definition — the user setting mcpx.servers, or the workspace's
// .vscode/mcp.json — VS Code's own definitions it can import (its user setting mcp.servers), and the
// added servers started once the gateway has reloaded with them.
import { type JsonObject, isObject } from '../../protocol/jsonrpc';
import { EDITOR_IDENTITY } from '../editorCall';
import type { McpJsonFile } from '../ports';
import type { Deps } from './command';

/** How long the gateway may take to reload with a new server before the person is told. */
const LOAD_MS = 20_000;

/** The servers of the running gateway. */
export const defined = (d: Deps): Set<string> => new Set(d.host.gateway?.servers().map((s) => s.name) ?? []);

/** VS Code's own server definitions (its user setting mcp.servers) that mcpx does not have yet. */
export function vscodeServers(d: Deps): Record<string, JsonObject> {
  const all = d.config.getConfiguration('mcp').get<unknown>('servers');
  if (!isObject(all)) return {};
  const known = defined(d);
  return Object.fromEntries(
    Object.entries(all).filter((e): e is [string, JsonObject] => isObject(e[1]) && !known.has(e[0])),
  );
}

export async function saveToSettings(d: Deps, entries: Record<string, JsonObject>): Promise<void> {
  const cfg = d.config.getConfiguration('mcpx');
  const current = cfg.inspect<Record<string, unknown>>('servers')?.globalValue ?? {};
  await cfg.update('servers', { ...current, ...entries }, d.kit.ConfigurationTarget.Global);
}

/** Adds the entry to the workspace's .vscode/mcp.json (made if missing). A file that is not plain JSON
 *  (comments) is left alone: false, and the person is told. */
export async function saveToWorkspace(d: Deps, file: McpJsonFile, name: string, def: JsonObject): Promise<boolean> {
  let doc: JsonObject = {};
  try {
    const text = await file.read();
    const parsed = text === undefined ? {} : (JSON.parse(text) as unknown);
    if (!isObject(parsed)) throw new Error('not an object');
    doc = parsed;
  } catch (e) {
    void d.window.showErrorMessage(
      `mcpx: ${file.path} is not plain JSON (${(e as Error).message}); add ${name} there by hand, or save it in the user settings.`,
    );
    return false;
  }
  const key = isObject(doc.mcpServers) && !isObject(doc.servers) ? 'mcpServers' : 'servers';
  doc[key] = { ...(isObject(doc[key]) ? doc[key] : {}), [name]: def };
  await file.write(`${JSON.stringify(doc, null, 2)}\n`);
  return true;
}

/** Resolves once the running gateway has all these servers (it reloads on the change), or after LOAD_MS. */
function loaded(d: Deps, names: string[]): Promise<boolean> {
  const has = () => names.every((n) => defined(d).has(n));
  if (has()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (v: boolean) => {
      sub.dispose();
      clearTimeout(timer);
      resolve(v);
    };
    const sub = d.host.onDidChange(() => has() && done(true));
    const timer = setTimeout(() => done(has()), LOAD_MS);
  });
}

/** Starts the added servers and says how they went; the Upstreams view is brought forward. */
export async function startAndShow(d: Deps, names: string[]): Promise<void> {
  if (!(await loaded(d, names)))
    return void d.window.showWarningMessage(
      `mcpx: saved ${names.join(', ')}, but the gateway has not loaded it (see mcpx: Show Log).`,
    );
  await d.commands.executeCommand('mcpx.upstreams.focus');
  for (const name of names) {
    // The gateway that loaded them (a reload made a new one).
    const g = d.host.gateway;
    if (!g) return;
    try {
      await g.restartServer(name, EDITOR_IDENTITY);
      const tools = await g.serverList(name, 'tools', EDITOR_IDENTITY);
      void d.window.showInformationMessage(`mcpx: ${name} is running with ${tools.length} tool(s).`);
    } catch (e) {
      void d.window.showErrorMessage(`mcpx: ${name} did not start: ${(e as Error).message}`);
    }
  }
}

export async function importFromVsCode(d: Deps): Promise<string[] | undefined> {
  const found = vscodeServers(d);
  const picks = await d.window.showQuickPick(
    Object.entries(found).map(([name, def]) => ({
      label: name,
      description:
        typeof def.url === 'string' ? def.url : [def.command, ...(Array.isArray(def.args) ? def.args : [])].join(' '),
      picked: true,
      def,
    })),
    { title: "mcpx: import VS Code's servers into mcpx.servers", canPickMany: true },
  );
  if (!picks?.length) return undefined;
  await saveToSettings(d, Object.fromEntries(picks.map((p) => [p.label, p.def])));
  return picks.map((p) => p.label);
}
