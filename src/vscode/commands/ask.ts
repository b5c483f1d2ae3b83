// What the commands ask the person before they act: which server, and a tool's arguments.
import type { GatewayFacade, PersonPort } from '../../gateway/editorPort';
import { type JsonObject, isObject } from '../../protocol/jsonrpc';
import type { EditorWindow } from '../ports';

type Window = Pick<EditorWindow, 'showQuickPick' | 'showInformationMessage' | 'showInputBox'>;

/** A row of the Upstreams view, or a server's name: what a command on a server is given. */
export type ServerArg = { name?: string } | string | undefined;

/** The server a command is about: named by its argument (a string, or a tree row), else picked. */
export async function serverOf(arg: ServerArg, g: GatewayFacade, window: Window): Promise<string | undefined> {
  return typeof arg === 'string' ? arg : (arg?.name ?? (await pickServer(g, window)));
}

async function pickServer(g: GatewayFacade, window: Window): Promise<string | undefined> {
  const items = g
    .servers()
    .map((s) => ({ label: s.name, description: [s.state, s.revision, s.transport].filter(Boolean).join(' · ') }));
  if (items.length === 0)
    return void window.showInformationMessage(
      'mcpx: no upstream servers are configured (.vscode/mcp.json or mcpx.servers).',
    );
  return (await window.showQuickPick(items, { title: 'mcpx: pick a server' }))?.label;
}

/** Arguments for a tool: its input schema asked through the elicitation form flow when flat, else JSON. */
export async function argumentsFor(
  person: PersonPort,
  window: Window,
  server: string,
  tool: JsonObject,
): Promise<JsonObject | undefined> {
  const schema = isObject(tool.inputSchema) ? tool.inputSchema : { type: 'object', properties: {} };
  const params = { mode: 'form', message: `${server} · ${String(tool.name)}: arguments`, requestedSchema: schema };
  if (!isObject(schema.properties) || Object.keys(schema.properties).length === 0) return {};
  if (person.can('elicitation/create', params)) {
    const r = await person.ask({ server, method: 'elicitation/create', params }, new AbortController().signal);
    return r?.action === 'accept' && isObject(r.content) ? r.content : undefined;
  }
  const text = await window.showInputBox({
    title: `${server} · ${String(tool.name)}: arguments (JSON)`,
    value: '{}',
    validateInput: (v) => {
      try {
        return isObject(JSON.parse(v)) ? undefined : 'a JSON object';
      } catch (e) {
        return (e as Error).message;
      }
    },
  });
  return text === undefined ? undefined : (JSON.parse(text) as JsonObject);
}
