// mcpx: Add Server… — a server without editing JSON: a command (stdio) or a URL (HTTP), a name, a
// credential kept in SecretStorage and referred to as ${secret:NAME}, and where to save it (the
// workspace's .vscode/mcp.json or the user setting mcpx.servers; serverDefinitions.ts). The servers VS
// Code already knows (its user setting mcp.servers) can be imported in one step. The gateway reloads on
// the change; the new server is then started, so its tools show at once. Resolves with the names added
// (undefined when the person stopped). A server from the MCP Registry: fromRegistry.ts.
import type { JsonObject } from '../../protocol/jsonrpc';
import { type Deps, gatewayCommand } from './command';
import { fromRegistry } from './fromRegistry';
import {
  defined,
  importFromVsCode,
  saveToSettings,
  saveToWorkspace,
  startAndShow,
  vscodeServers,
} from './serverDefinitions';

const NAME = /^[\w.-]+$/;
type Via = 'stdio' | 'http' | 'import' | 'registry';

export const addServer = gatewayCommand(async (d, g): Promise<string[] | undefined> => {
  const via = await howReached(d);
  if (!via) return undefined;
  if (via === 'registry') {
    const got = await fromRegistry(d, g, (suggested) => nameFor(d, suggested));
    if (!got || !(await save(d, got.local, got.def))) return undefined;
    await startAndShow(d, [got.local]);
    return [got.local];
  }
  if (via === 'import') {
    const names = await importFromVsCode(d);
    if (names) await startAndShow(d, names);
    return names;
  }
  const reached = via === 'stdio' ? await commandLine(d) : await address(d);
  if (!reached) return undefined;
  const { def } = reached;
  const name = await nameFor(d, reached.suggested);
  if (!name) return undefined;
  if (!(await credential(d, via, name, def))) return undefined;
  if (via === 'stdio' && !(await sandbox(d, name, def))) return undefined;
  if (!(await save(d, name, def))) return undefined;
  await startAndShow(d, [name]);
  return [name];
});

async function howReached(d: Deps): Promise<Via | undefined> {
  const importable = Object.keys(vscodeServers(d));
  const kinds: Array<{ label: string; detail: string; via: Via }> = [
    {
      label: '$(terminal) Command (stdio)',
      detail: 'mcpx starts a process and talks to it over stdin/stdout',
      via: 'stdio',
    },
    { label: '$(globe) URL (HTTP)', detail: 'a server reached over Streamable HTTP or HTTP+SSE', via: 'http' },
    {
      label: '$(library) From the MCP Registry…',
      detail: 'search the registry (registry.url); one exact version installed, checked, sandboxed',
      via: 'registry',
    },
    ...(importable.length
      ? [
          {
            label: "$(cloud-download) Import VS Code's servers",
            detail: `from the user setting mcp.servers: ${importable.join(', ')}`,
            via: 'import' as const,
          },
        ]
      : []),
  ];
  return (await d.window.showQuickPick(kinds, { title: 'mcpx: add a server (1/4): how is it reached?' }))?.via;
}

type Reached = { def: JsonObject; suggested: string };

/** A command line as a command and its arguments: spaces separate, quotes keep spaces in. */
function splitCommandLine(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

async function commandLine(d: Deps): Promise<Reached | undefined> {
  const line = await d.window.showInputBox({
    title: 'mcpx: add a server (2/4): the command line',
    prompt: 'The command and its arguments, e.g. npx -y @modelcontextprotocol/server-everything',
    ignoreFocusOut: true,
    validateInput: (v) => (splitCommandLine(v).length ? undefined : 'a command'),
  });
  if (!line) return undefined;
  const [command, ...args] = splitCommandLine(line);
  // The program's own name, without its folder and extension.
  const program = command!
    .split(/[\\/]/)
    .at(-1)!
    .replace(/\.\w+$/, '');
  return { def: { type: 'stdio', command: command!, args }, suggested: program || 'server' };
}

async function address(d: Deps): Promise<Reached | undefined> {
  const url = await d.window.showInputBox({
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
  // The host's first meaningful label (mcp.example.com: example); an address suggests nothing.
  const host = new URL(url).hostname;
  const label = /^[\d.]+$|:/.test(host) ? undefined : host.split('.').find((p) => p !== 'www' && p !== 'mcp');
  return { def: { type: 'http', url }, suggested: label ?? 'server' };
}

async function nameFor(d: Deps, suggested: string): Promise<string | undefined> {
  const taken = defined(d);
  let base = suggested.replace(/[^\w.-]+/g, '-');
  for (let i = 2; taken.has(base); i++) base = `${suggested}-${i}`;
  return d.window.showInputBox({
    title: 'mcpx: add a server (3/4): its name',
    value: base,
    prompt: 'Tools are called through it (mcpx_call server), and in pass-through mode it prefixes their names',
    ignoreFocusOut: true,
    validateInput: (v) =>
      !NAME.test(v) ? 'letters, digits, _ . -' : taken.has(v) ? `${v} is already a server of this gateway` : undefined,
  });
}

/** Asks whether the server needs a credential; one given is stored in SecretStorage as `<name>-token` and
 *  the definition refers to it (an environment variable for stdio, a bearer header for HTTP). False when
 *  the person stopped. */
async function credential(d: Deps, via: 'stdio' | 'http', name: string, def: JsonObject): Promise<boolean> {
  const wanted = await d.window.showQuickPick(
    [
      { label: 'No credential', use: false },
      {
        label: '$(key) A secret, kept in SecretStorage',
        detail:
          via === 'http'
            ? 'sent as Authorization: Bearer …; the definition holds only ${secret:NAME}'
            : 'given to the process as an environment variable; the definition holds only ${secret:NAME}',
        use: true,
      },
    ],
    { title: `mcpx: add a server: does ${name} need a credential?` },
  );
  if (!wanted) return false;
  if (!wanted.use) return true;
  const variable =
    via === 'stdio'
      ? await d.window.showInputBox({
          title: 'mcpx: the environment variable that holds it',
          value: 'API_KEY',
          ignoreFocusOut: true,
          validateInput: (v) => (/^[A-Za-z_]\w*$/.test(v) ? undefined : 'a variable name'),
        })
      : 'Authorization';
  if (!variable) return false;
  const secret = `${name}-token`;
  const value = await d.window.showInputBox({
    title: `mcpx: the value of ${secret} (stored in SecretStorage)`,
    password: true,
    ignoreFocusOut: true,
  });
  if (value === undefined) return false;
  await d.host.secrets?.store(secret, value);
  if (via === 'stdio') def.env = { [variable]: `\${secret:${secret}}` };
  else def.headers = { Authorization: `Bearer \${secret:${secret}}` };
  return true;
}

/** Offers the sandbox with its defaults (docs/security.md "The upstream sandbox"): chosen, the definition
 *  holds `sandbox: true`. False when the person stopped. */
async function sandbox(d: Deps, name: string, def: JsonObject): Promise<boolean> {
  const how = await d.window.showQuickPick(
    [
      {
        label: '$(shield) In a sandbox',
        detail:
          "reads the workspace, its own files and the system's libraries; writes a private temporary folder; no network (Linux, bubblewrap)",
        boxed: true,
      },
      { label: 'Without a sandbox', detail: 'it can read, write and reach whatever you can', boxed: false },
    ],
    { title: `mcpx: add a server: run ${name} in a sandbox?` },
  );
  if (!how) return false;
  if (how.boxed) def.sandbox = true;
  return true;
}

/** Saved where the person says; false when it could not be (or they stopped). */
async function save(d: Deps, name: string, def: JsonObject): Promise<boolean> {
  const file = d.mcpJson();
  const where = await d.window.showQuickPick(
    [
      ...(file
        ? [{ label: '$(folder) This workspace', detail: '.vscode/mcp.json (VS Code runs it too)', at: 'workspace' }]
        : []),
      { label: '$(account) User settings', detail: 'mcpx.servers, for every window', at: 'user' },
    ],
    { title: `mcpx: add a server (4/4): where to save ${name}?` },
  );
  if (!where) return false;
  if (where.at === 'workspace' && file) return saveToWorkspace(d, file, name, def);
  await saveToSettings(d, { [name]: def });
  return true;
}
