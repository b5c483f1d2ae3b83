// What the editor suite's feature files share (test/vscode/suite.ts runs them, in its order): the
// extension's exports, the page driver's actions (`mcpx-drive:` lines, performed by test/vscode.test.ts
// in the page with playwright), MCP clients of the gateway, the fixture upstream's record, and the way a
// test is declared.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { Action } from './actions';
import { until } from '../harness/wait';

export type Json = Record<string, unknown>;
export interface TreeNode {
  kind: string;
  name?: string;
  list?: string;
  item?: Json;
  /** A held tool or prompt (src/vscode/views/upstreams.ts). */
  held?: string;
}
/** A row of the Tasks view (src/vscode/views/tasks.ts TaskRow). */
export interface TaskRow {
  kind: 'task' | 'background' | 'palette' | 'exec';
  id: string;
  state: string;
  label: string;
  description: string;
  contextValue: string;
  command?: vscode.Command;
}
export interface Exports {
  endpoint(): string | undefined;
  host: {
    secret?: string;
    bareEndpoint?: string;
    gateway?: {
      servers(): Array<{ name: string; state: string }>;
      questions(): Array<{ id: string; server: string; reason: string; deadline: number }>;
      signInState(server: string): string;
      config: { profiles?: ReadonlyMap<string, unknown> };
    };
    tasks?: { find(id: string): { status: string } | undefined };
  };
  upstreams: vscode.TreeDataProvider<TreeNode>;
  mcpDefinitions: vscode.McpServerDefinitionProvider;
  questions: vscode.TreeDataProvider<{ label: string; description: string }>;
  tasks: vscode.TreeDataProvider<TaskRow>;
  subscriptions: vscode.TreeDataProvider<{ label: string; description: string }>;
  person: { open(): number; completed: string[] };
  questionsView: { view: vscode.TreeView<unknown>; announced: number };
  status: vscode.StatusBarItem;
  /** The agents status item (src/vscode/views/agentsStatus.ts). */
  agents: { item: vscode.StatusBarItem; refresh(): Promise<void> };
  upstreamLogs: { recent: Map<string, string[]> };
  grants: { list(): ReadonlyArray<{ server: string; tool: string; client: string }> };
  /** The extension's two lifetimes (src/vscode/lifetimes.ts): how many disposables each holds. */
  life: { counts(): { extension: number; run: number } };
  /** Held tool definitions (src/vscode/pins.ts): the notifications shown. */
  pins: { announced: string[] };
}

/** Desktop VS Code (scripts/test-desktop.ts) has no page driver: a screenshot is skipped there, and a
 *  test that needs a widget answered is a pageTest, not run. */
export const DESKTOP = process.env.MCPX_SUITE === 'desktop';
export function drive(...actions: Action[]): void {
  if (DESKTOP) {
    const needy = actions.filter((a) => !('shot' in a));
    if (needy.length) throw new Error(`the desktop run has no page driver for ${JSON.stringify(needy)}`);
    return;
  }
  console.log(`mcpx-drive: ${JSON.stringify(actions)}`);
}

let batches = 0;
/** `drive`, then waits until the driver says it has done these actions (a screenshot taken, a widget
 *  answered): the test goes on once the page is as the actions left it. */
export async function driven(...actions: Action[]): Promise<void> {
  drive(...actions);
  if (DESKTOP) return;
  const ack = String(++batches);
  console.log(`mcpx-drive: ${JSON.stringify([{ ack }])}`);
  const acks = process.env.MCPX_DRIVE_ACKS!;
  await until(() => existsSync(join(acks, ack)) || undefined, {
    what: `the driver to have done ${JSON.stringify(actions)}`,
    every: 100,
    timeout: 60_000,
  });
}

export const WORKSPACE = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
export const RECORD = () => join(WORKSPACE(), 'up.jsonl');
/** The frames a fixture upstream received: the workspace's `up`, or the one recording to `file`. */
export const recorded = (file = RECORD()): Json[] => {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { dir: string; frame: Json })
      .filter((l) => l.dir === 'in')
      .map((l) => l.frame);
  } catch {
    return [];
  }
};

let nextId = 1;
/** A fresh JSON-RPC id for a request of the suite's own clients. */
export const newId = (): number => nextId++;
/** A 2026-07-28 MCP client of the gateway that declares nothing: every question goes to the person. */
export async function mcp(endpoint: string, method: string, params: Json = {}, signal?: AbortSignal): Promise<Json> {
  const res = await fetch(endpoint, {
    signal,
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': method,
      ...(method === 'tools/call' ? { 'Mcp-Name': String(params.name) } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'test-agent', version: '1.0.0' },
        },
      },
    }),
  });
  return answerOf(res);
}

/** The result of a JSON-RPC answer in JSON or SSE (the last data line is the response); its error thrown. */
export async function answerOf(res: Response): Promise<Json> {
  const text = await res.text();
  const frames = res.headers.get('content-type')?.includes('event-stream')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => JSON.parse(l.slice(5)) as Json)
    : [JSON.parse(text) as Json];
  const last = frames.filter((f) => 'id' in f).at(-1) ?? frames.at(-1)!;
  if (last.error) throw new Error(JSON.stringify(last.error));
  return last.result as Json;
}

/** A 2025-11-25 client of the gateway over Streamable HTTP: initialize, then requests on its session. */
export async function legacyClient(
  endpoint: string,
  name: string,
): Promise<(method: string, params?: Json) => Promise<Json>> {
  let session: string | undefined;
  const post = async (body: Json): Promise<Json> => {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        ...(session ? { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-11-25' } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', ...body }),
    });
    session ??= res.headers.get('mcp-session-id') ?? undefined;
    if (body.id === undefined) {
      await res.text();
      return {};
    }
    return answerOf(res);
  };
  await post({
    id: nextId++,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name, version: '1.0.0' } },
  });
  assert.ok(session, 'a legacy session');
  await post({ method: 'notifications/initialized' });
  return (method, params = {}) => post({ id: nextId++, method, params });
}
export const call = (endpoint: string, tool: string, args: Json = {}, signal?: AbortSignal) =>
  mcp(endpoint, 'tools/call', { name: 'mcpx_call', arguments: { server: 'up', tool, arguments: args } }, signal);
export const textOf = (r: Json) => String((r.content as Json[])[0]!.text);

/** Resolves once the runner has saved this screenshot (build/screenshots of the dev folder), so the test
 *  changes nothing on screen before it is taken. */
export async function shotTaken(name: string, since: number): Promise<void> {
  const file = join(vscode.extensions.getExtension('mcpx.mcpx')!.extensionPath, 'build', 'screenshots', `${name}.png`);
  await until(() => existsSync(file) && statSync(file).mtimeMs >= since, {
    what: `the screenshot ${name}`,
    every: 100,
    timeout: 40_000,
  });
}

/** The fixture upstream's arguments for a server of this name. */
export const fixtureArgs = (name: string, ...more: string[]) => {
  const file = join(WORKSPACE(), '.vscode', 'mcp.json');
  const up = (JSON.parse(readFileSync(file, 'utf8')) as { servers: Record<string, Json> }).servers.up!;
  return [(up.args as string[])[0]!, '--rev', '2025-11-25', '--name', name, ...more];
};
/** The same as a person would type it into Add Server… (quoted). */
export const fixtureCommandLine = (name: string, ...more: string[]) =>
  [process.execPath, ...fixtureArgs(name, ...more)].map((a) => `"${a}"`).join(' ');
export const toolNodes = async (x: Exports, server: string): Promise<TreeNode[]> => {
  const node = ((await x.upstreams.getChildren()) as TreeNode[]).find((n) => n.name === server);
  if (!node) return [];
  const groups = (await x.upstreams.getChildren(node)) as TreeNode[];
  return ((await x.upstreams.getChildren(groups[0])) as TreeNode[]).filter((n) => n.kind === 'item');
};
export const upCalls = (tool: string) =>
  recorded().filter((f) => f.method === 'tools/call' && (f.params as Json).name === tool).length;

/** One editor test: a test that needs the page driver to answer a widget (a QuickPick, a webview, a
 *  notification, the browser) runs in code-server only, not in the desktop run (docs/editor-hosts.md);
 *  a smoke test runs against the installed .vsix too (MCPX_SUITE=smoke). */
export interface EditorTest {
  readonly name: string;
  readonly run: (x: Exports) => Promise<void>;
  readonly page: boolean;
  readonly smoke: boolean;
}

export const test = (name: string, run: (x: Exports) => Promise<void>, o: { smoke?: boolean } = {}): EditorTest => ({
  name,
  run,
  page: false,
  smoke: o.smoke === true,
});

export const pageTest = (name: string, run: (x: Exports) => Promise<void>): EditorTest => ({
  name,
  run,
  page: true,
  smoke: false,
});
