// The page an MCP App runs in (src/vscode/apps/appPanel.ts opens it): the app's HTML in a sandboxed
// frame (srcdoc, scripts only: an opaque origin that reaches neither this page nor VS Code), and the
// host side of the MCP Apps protocol — @modelcontextprotocol/ext-apps' AppBridge over a
// PostMessageTransport to that frame. What the app asks of the host (a tool call, a message, a link)
// goes to the extension as a message, which checks it (src/vscode/apps/appMessages.ts) and answers;
// the extension sends the tool's input and result, and VS Code's theme. Bundled by esbuild.mjs into
// dist/webview/app.js.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

const vscode = acquireVsCodeApi();
const frame = /** @type {HTMLIFrameElement} */ (document.getElementById('app'));
const status = document.getElementById('status');
/** Requests to the extension waiting for their answer, by id. */
const waiting = new Map();
let nextId = 1;
/** @type {AppBridge | undefined} */
let bridge;
let context = {};

function ask(type, body) {
  const id = nextId++;
  vscode.postMessage({ type, id, ...body });
  return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
}

/** The page's look in the app's terms (McpUiHostStyles): VS Code's own colours and font. */
function styles() {
  const css = getComputedStyle(document.body);
  const v = (name) => css.getPropertyValue(name).trim() || undefined;
  const variables = {
    '--color-background-primary': v('--vscode-editor-background'),
    '--color-text-primary': v('--vscode-editor-foreground'),
    '--color-border-primary': v('--vscode-panel-border'),
    '--font-sans': v('--vscode-font-family'),
    '--font-mono': v('--vscode-editor-font-family'),
  };
  return { variables: Object.fromEntries(Object.entries(variables).filter(([, x]) => x !== undefined)) };
}

async function start(init) {
  context = {
    theme: init.theme,
    styles: styles(),
    displayMode: 'inline',
    availableDisplayModes: ['inline'],
    platform: 'desktop',
    locale: navigator.language,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    ...(init.tool ? { toolInfo: { tool: init.tool } } : {}),
  };
  bridge = new AppBridge(
    null,
    { name: 'mcpx', version: init.version },
    { openLinks: {}, serverTools: {}, logging: {}, message: { text: {} } },
    { hostContext: context },
  );
  bridge.oncalltool = (params) => ask('callTool', { name: params.name, arguments: params.arguments ?? {} });
  bridge.onmessage = async (params) => {
    await ask('message', { role: params.role, content: params.content });
    return {};
  };
  bridge.onopenlink = (params) => ask('openLink', { url: params.url });
  bridge.onloggingmessage = (params) => vscode.postMessage({ type: 'log', level: params.level, data: params.data });
  bridge.oninitialized = () => {
    status.textContent = '';
    void bridge.sendToolInput({ arguments: init.input ?? {} });
    if (init.result) void bridge.sendToolResult(init.result);
  };
  // Listening before the app's document loads: its first message is its ui/initialize.
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  frame.srcdoc = init.html;
}

window.addEventListener('message', (e) => {
  // The app's own messages are the bridge's (its transport reads them); the rest come from the extension.
  if (e.source === frame.contentWindow) return;
  const m = e.data;
  if (!m || typeof m !== 'object') return;
  if (m.type === 'init' && !bridge)
    start(m).catch((err) => {
      status.textContent = `The app did not start: ${err.message}`;
    });
  else if (m.type === 'answer') {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (w && 'error' in m) w.reject(new Error(m.error));
    else w?.resolve(m.result);
  } else if (m.type === 'theme' && bridge) {
    context = { ...context, theme: m.theme, styles: styles() };
    bridge.setHostContext(context);
  }
});

vscode.postMessage({ type: 'ready' });
