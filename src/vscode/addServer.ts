// mcpx: Add Server… — a server without editing JSON: a command (stdio) or a URL (HTTP), a name, a
// credential kept in SecretStorage and referred to as ${secret:NAME}, and where to save it (the
// workspace's .vscode/mcp.json or the user setting mcpx.servers). The servers VS Code already knows
// (its user setting mcp.servers) can be imported in one step. The gateway reloads on the change; the
// new server is then started, so its tools show at once.
import * as vscode from 'vscode';
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import type { GatewayHost } from './gatewayHost';
import { EDITOR_IDENTITY } from './views';

const NAME = /^[\w.-]+$/;

/** A command line as a command and its arguments: spaces separate, quotes keep spaces in. */
function splitCommandLine(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

const defined = (host: GatewayHost): Set<string> => new Set(host.gateway?.servers().map((s) => s.name) ?? []);

/** VS Code's own server definitions (its user setting mcp.servers) that mcpx does not have yet. */
function vscodeServers(host: GatewayHost): Record<string, JsonObject> {
  const all = vscode.workspace.getConfiguration('mcp').get<unknown>('servers');
  if (!isObject(all)) return {};
  const known = defined(host);
  return Object.fromEntries(
    Object.entries(all).filter((e): e is [string, JsonObject] => isObject(e[1]) && !known.has(e[0])),
  );
}

async function saveToSettings(entries: Record<string, JsonObject>): Promise<void> {
  const cfg = vscode.workspace.getConfiguration('mcpx');
  const current = cfg.inspect<Record<string, unknown>>('servers')?.globalValue ?? {};
  await cfg.update('servers', { ...current, ...entries }, vscode.ConfigurationTarget.Global);
}

/** Adds the entry to the workspace's .vscode/mcp.json (made if missing). A file that is not plain JSON
 *  (comments) is left alone: undefined, and the person is told. */
async function saveToWorkspace(name: string, def: JsonObject): Promise<vscode.Uri | undefined> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) return undefined;
  const file = vscode.Uri.joinPath(folder.uri, '.vscode', 'mcp.json');
  let doc: JsonObject = {};
  try {
    const text = Buffer.from(await vscode.workspace.fs.readFile(file)).toString('utf8');
    const parsed = JSON.parse(text) as unknown;
    if (!isObject(parsed)) throw new Error('not an object');
    doc = parsed;
  } catch (e) {
    if (!(e instanceof vscode.FileSystemError)) {
      void vscode.window.showErrorMessage(
        `mcpx: ${file.fsPath} is not plain JSON (${(e as Error).message}); add ${name} there by hand, or save it in the user settings.`,
      );
      return undefined;
    }
  }
  const key = isObject(doc.mcpServers) && !isObject(doc.servers) ? 'mcpServers' : 'servers';
  doc[key] = { ...(isObject(doc[key]) ? doc[key] : {}), [name]: def };
  await vscode.workspace.fs.writeFile(file, Buffer.from(`${JSON.stringify(doc, null, 2)}\n`));
  return file;
}

/** Resolves once the running gateway has all these servers (it reloads on the change), or after 20 s. */
function loaded(host: GatewayHost, names: string[]): Promise<boolean> {
  const has = () => names.every((n) => defined(host).has(n));
  if (has()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (v: boolean) => {
      sub.dispose();
      clearTimeout(timer);
      resolve(v);
    };
    const sub = host.onDidChange(() => has() && done(true));
    const timer = setTimeout(() => done(has()), 20_000);
  });
}

/** Starts the added servers and says how they went; the Upstreams view is brought forward. */
async function startAndShow(host: GatewayHost, names: string[]): Promise<void> {
  if (!(await loaded(host, names)))
    return void vscode.window.showWarningMessage(
      `mcpx: saved ${names.join(', ')}, but the gateway has not loaded it (see mcpx: Show Log).`,
    );
  await vscode.commands.executeCommand('mcpx.upstreams.focus');
  for (const name of names) {
    const g = host.gateway;
    if (!g) return;
    try {
      await g.restartServer(name, EDITOR_IDENTITY);
      const tools = await g.serverList(name, 'tools', EDITOR_IDENTITY);
      void vscode.window.showInformationMessage(`mcpx: ${name} is running with ${tools.length} tool(s).`);
    } catch (e) {
      void vscode.window.showErrorMessage(`mcpx: ${name} did not start: ${(e as Error).message}`);
    }
  }
}

async function importFromVsCode(host: GatewayHost): Promise<string[] | undefined> {
  const found = vscodeServers(host);
  const picks = await vscode.window.showQuickPick(
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
  await saveToSettings(Object.fromEntries(picks.map((p) => [p.label, p.def])));
  return picks.map((p) => p.label);
}

/** The whole flow; resolves with the names added (undefined when the person stopped). */
async function addServer(host: GatewayHost): Promise<string[] | undefined> {
  if (!host.gateway)
    return void vscode.window.showWarningMessage(`mcpx: the gateway is not running: ${host.whyStopped}.`);
  const importable = Object.keys(vscodeServers(host));
  const kinds = [
    {
      label: '$(terminal) Command (stdio)',
      detail: 'mcpx starts a process and talks to it over stdin/stdout',
      via: 'stdio',
    },
    { label: '$(globe) URL (HTTP)', detail: 'a server reached over Streamable HTTP or HTTP+SSE', via: 'http' },
    ...(importable.length
      ? [
          {
            label: "$(cloud-download) Import VS Code's servers",
            detail: `from the user setting mcp.servers: ${importable.join(', ')}`,
            via: 'import',
          },
        ]
      : []),
  ];
  const kind = (await vscode.window.showQuickPick(kinds, { title: 'mcpx: add a server (1/4): how is it reached?' }))
    ?.via;
  if (!kind) return undefined;
  if (kind === 'import') {
    const names = await importFromVsCode(host);
    if (names) await startAndShow(host, names);
    return names;
  }
  const def: JsonObject = {};
  let suggested = 'server';
  if (kind === 'stdio') {
    const line = await vscode.window.showInputBox({
      title: 'mcpx: add a server (2/4): the command line',
      prompt: 'The command and its arguments, e.g. npx -y @modelcontextprotocol/server-everything',
      ignoreFocusOut: true,
      validateInput: (v) => (splitCommandLine(v).length ? undefined : 'a command'),
    });
    if (!line) return undefined;
    const [command, ...args] = splitCommandLine(line);
    Object.assign(def, { type: 'stdio', command: command!, args });
    suggested =
      command!
        .split(/[\\/]/)
        .at(-1)!
        .replace(/\.\w+$/, '') || suggested;
  } else {
    const url = await vscode.window.showInputBox({
      title: 'mcpx: add a server (2/4): the URL',
      prompt: 'The MCP endpoint, e.g. https://example.com/mcp',
      ignoreFocusOut: true,
      validateInput: (v) => {
        try {
          return /^https?:$/.test(new URL(v).protocol) ? undefined : 'an http or https URL';
        } catch {
          return 'an http or https URL';
        }
      },
    });
    if (!url) return undefined;
    Object.assign(def, { type: 'http', url });
    // The host's first meaningful label (mcp.example.com: example); an address suggests nothing.
    const host = new URL(url).hostname;
    if (!/^[\d.]+$|:/.test(host)) suggested = host.split('.').find((p) => p !== 'www' && p !== 'mcp') ?? suggested;
  }
  const taken = defined(host);
  let base = suggested.replace(/[^\w.-]+/g, '-');
  for (let i = 2; taken.has(base); i++) base = `${suggested}-${i}`;
  const name = await vscode.window.showInputBox({
    title: 'mcpx: add a server (3/4): its name',
    value: base,
    prompt: 'Tools are called through it (mcpx_call server), and in pass-through mode it prefixes their names',
    ignoreFocusOut: true,
    validateInput: (v) =>
      !NAME.test(v) ? 'letters, digits, _ . -' : taken.has(v) ? `${v} is already a server of this gateway` : undefined,
  });
  if (!name) return undefined;
  const credential = await vscode.window.showQuickPick(
    [
      { label: 'No credential', use: false },
      {
        label: '$(key) A secret, kept in SecretStorage',
        detail:
          kind === 'http'
            ? 'sent as Authorization: Bearer …; the definition holds only ${secret:NAME}'
            : 'given to the process as an environment variable; the definition holds only ${secret:NAME}',
        use: true,
      },
    ],
    { title: `mcpx: add a server: does ${name} need a credential?` },
  );
  if (!credential) return undefined;
  if (credential.use) {
    const variable =
      kind === 'stdio'
        ? await vscode.window.showInputBox({
            title: 'mcpx: the environment variable that holds it',
            value: 'API_KEY',
            ignoreFocusOut: true,
            validateInput: (v) => (/^[A-Za-z_]\w*$/.test(v) ? undefined : 'a variable name'),
          })
        : 'Authorization';
    if (!variable) return undefined;
    const secret = `${name}-token`;
    const value = await vscode.window.showInputBox({
      title: `mcpx: the value of ${secret} (stored in SecretStorage)`,
      password: true,
      ignoreFocusOut: true,
    });
    if (value === undefined) return undefined;
    await host.secrets?.store(secret, value);
    if (kind === 'stdio') def.env = { [variable]: `\${secret:${secret}}` };
    else def.headers = { Authorization: `Bearer \${secret:${secret}}` };
  }
  const folder = vscode.workspace.workspaceFolders?.[0];
  const where = await vscode.window.showQuickPick(
    [
      ...(folder
        ? [{ label: '$(folder) This workspace', detail: '.vscode/mcp.json (VS Code runs it too)', at: 'workspace' }]
        : []),
      { label: '$(account) User settings', detail: 'mcpx.servers, for every window', at: 'user' },
    ],
    { title: `mcpx: add a server (4/4): where to save ${name}?` },
  );
  if (!where) return undefined;
  if (where.at === 'workspace') {
    if (!(await saveToWorkspace(name, def))) return undefined;
  } else await saveToSettings({ [name]: def });
  await startAndShow(host, [name]);
  return [name];
}

export function registerAddServer(host: GatewayHost): vscode.Disposable {
  return vscode.commands.registerCommand('mcpx.addServer', () => addServer(host));
}
