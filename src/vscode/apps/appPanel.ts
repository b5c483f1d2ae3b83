// An MCP App in a webview panel (docs/gateway.md "Apps in the editor"): the tool's `ui://` resource read
// through the gateway (under the server's mcpx:// name, so it reaches that server whatever another one
// serves), its HTML in a sandboxed frame of webview/app.js's page under the resource's CSP, VS Code's
// theme, the call's input and result handed to the app by ext-apps' AppBridge. What the app asks comes
// back here, checked (appMessages.ts): its tool calls go through the gateway as the person's, as a
// palette call does (permissions and the Activity log apply), to its own server only; its messages are
// shown; a link opens only after the person agrees.
import * as vscode from 'vscode';
import type { GatewayFacade } from '../../gateway/editorPort';
import { toGatewayUri } from '../../gateway/catalogue/uris';
import type { JsonObject } from '../../protocol/jsonrpc';
import { EDITOR_IDENTITY, editorContext } from '../editorCall';
import type { AppCall } from '../ports';
import {
  allowAttribute,
  appCsp,
  appResource,
  appResourceUri,
  callableByApp,
  pageCsp,
  renderCsp,
  themeOf,
  withCsp,
} from './appMeta';
import { parseFromApp } from './appMessages';

/** Tool calls of one app in flight at once, at most. */
const MAX_CALLS = 8;

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(webview: vscode.Webview, media: vscode.Uri, csp: string, allow: string, title: string): string {
  const src = webview.asWebviewUri(vscode.Uri.joinPath(media, 'app.js')).toString();
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(csp)}"><title>${esc(title)}</title>
<style>html,body{margin:0;padding:0;height:100%;overflow:hidden}#app{border:0;width:100%;height:100%;display:block;background:transparent}#status{position:absolute;margin:1em;opacity:.7}</style></head>
<body><p id="status">Starting the app…</p><iframe id="app" title="${esc(title)}" sandbox="allow-scripts allow-forms"${allow ? ` allow="${esc(allow)}"` : ''}></iframe>
<script src="${esc(src)}"></script></body></html>`;
}

export interface AppHost {
  readonly extensionUri: vscode.Uri;
  readonly version: string;
  /** mcpx's own log: what the app logs, and what it sent that was refused. */
  log(line: string): void;
}

/** Opens the app of a call in a new panel; rejects with the reason when it has none or cannot be read. */
export async function openApp(host: AppHost, g: GatewayFacade, call: AppCall): Promise<vscode.WebviewPanel> {
  const uri = appResourceUri(call.tool);
  if (!uri) throw new Error(`${call.server}/${String(call.tool.name)} has no app`);
  const read = await g.readResource(toGatewayUri(call.server, uri), editorContext());
  const res = appResource(read);
  if ('problem' in res) throw new Error(`${uri}: ${res.problem}`);
  const directives = appCsp(res.ui);
  const title = `${call.server} · ${String(call.tool.name)}`;
  const media = vscode.Uri.joinPath(host.extensionUri, 'dist', 'webview');
  const panel = vscode.window.createWebviewPanel('mcpx.app', title, vscode.ViewColumn.Active, {
    enableScripts: true,
    localResourceRoots: [media],
    retainContextWhenHidden: true,
  });
  panel.webview.html = page(
    panel.webview,
    media,
    pageCsp(directives, panel.webview.cspSource),
    allowAttribute(res.ui),
    title,
  );
  const gone = new AbortController();
  let inFlight = 0;
  const post = (m: JsonObject) => void panel.webview.postMessage(m);
  const answer = (id: number, work: () => Promise<JsonObject>) => {
    if (inFlight >= MAX_CALLS) return post({ type: 'answer', id, error: `more than ${MAX_CALLS} requests in flight` });
    inFlight++;
    void work()
      .then(
        (result) => post({ type: 'answer', id, result }),
        (e: Error) => post({ type: 'answer', id, error: e.message }),
      )
      .finally(() => inFlight--);
  };
  const subs = [
    vscode.window.onDidChangeActiveColorTheme((t) => post({ type: 'theme', theme: themeOf(t.kind) })),
    panel.webview.onDidReceiveMessage((raw: unknown) => {
      const m = parseFromApp(raw);
      if ('problem' in m) {
        host.log(`app ${title}: refused a message: ${m.problem}`);
        if (m.id !== undefined) post({ type: 'answer', id: m.id, error: m.problem });
        return;
      }
      switch (m.type) {
        case 'ready':
          return post({
            type: 'init',
            html: withCsp(res.html, renderCsp(directives)),
            theme: themeOf(vscode.window.activeColorTheme.kind),
            tool: call.tool,
            input: call.input,
            ...(call.result ? { result: call.result } : {}),
            version: host.version,
          });
        case 'callTool':
          return answer(m.id, () => callFromApp(g, call.server, m.name, m.arguments, gone.signal));
        case 'message':
          return answer(m.id, async () => {
            void vscode.window.showInformationMessage(`mcpx: the app ${title} says: ${m.text}`);
            return {};
          });
        case 'openLink':
          return answer(m.id, async () => {
            const pick = await vscode.window.showInformationMessage(
              'Open link?',
              { modal: true, detail: `The app ${title} asks to open ${m.url.href}` },
              'Open',
            );
            if (pick !== 'Open') return { isError: true };
            await vscode.env.openExternal(vscode.Uri.parse(m.url.href, true));
            return {};
          });
        case 'log':
          return host.log(`app ${title} [${m.level}]: ${m.text}`);
      }
    }),
  ];
  panel.onDidDispose(() => {
    gone.abort(new Error('the app was closed'));
    for (const s of subs) s.dispose();
  });
  return panel;
}

/** A tool call of the app: to its own server only, a tool the app may call (`visibility`), made through
 *  the gateway under the editor's identity — the palette's path. */
async function callFromApp(
  g: GatewayFacade,
  server: string,
  name: string,
  args: JsonObject,
  signal: AbortSignal,
): Promise<JsonObject> {
  const tools = await g.serverList(server, 'tools', EDITOR_IDENTITY);
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`${server} has no tool ${JSON.stringify(name)}`);
  if (!callableByApp(tool)) throw new Error(`${server}/${name} is not for the app to call (its visibility)`);
  return g.callTool('mcpx_call', { server, tool: name, arguments: args }, editorContext(signal));
}
