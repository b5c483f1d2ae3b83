// Extensions as capabilities declare them (2026-07-28 schema ClientCapabilities/ServerCapabilities
// `extensions`: an open map, identifier -> settings), and the MCP Apps extension's marks on tools
// (io.modelcontextprotocol/ui, SEP-1865 "Resource Discovery", "Visibility"). docs/protocol.md
// "Extensions across the gateway".
import { type JsonObject, isObject } from './jsonrpc';
import { TASKS_EXTENSION } from './tasks';

export const UI_EXTENSION = 'io.modelcontextprotocol/ui';

/** The MIME type of an app's HTML resource (SEP-1865 "UI Resource Format"). */
export const APP_MIME = 'text/html;profile=mcp-app';

/** The client capabilities of a host that renders apps, as the editor declares them: its calls and the
 *  lists it shows are a pass-through server's as such a host sees them. */
export const APP_HOST_CAPABILITIES: JsonObject = { extensions: { [UI_EXTENSION]: { mimeTypes: [APP_MIME] } } };

/** The scheme of an app's resource URI. */
export const UI_SCHEME = 'ui://';

/** The extensions a client declared that reach an upstream on its behalf: every one, known to mcpx or
 *  not, but the tasks extension — mcpx declares that one upstream itself, as the task requestor. Undefined
 *  where none. */
export function carriedExtensions(caps: JsonObject): JsonObject | undefined {
  if (!isObject(caps.extensions)) return undefined;
  const out: JsonObject = {};
  for (const [id, settings] of Object.entries(caps.extensions))
    if (id !== TASKS_EXTENSION && isObject(settings)) out[id] = settings;
  return Object.keys(out).length ? out : undefined;
}

/** Whether these client capabilities declare the MCP Apps extension (a host that renders apps). */
export function declaresUi(caps: JsonObject): boolean {
  return isObject(caps.extensions) && isObject(caps.extensions[UI_EXTENSION]);
}

/** A tool's `_meta.ui` (SEP-1865 McpUiToolMeta), where it has one. */
function uiMeta(tool: JsonObject): JsonObject | undefined {
  return isObject(tool._meta) && isObject(tool._meta.ui) ? tool._meta.ui : undefined;
}

/** The app a tool renders with: `_meta.ui.resourceUri`, or the deprecated flat `_meta["ui/resourceUri"]`. */
export function appResourceUri(tool: JsonObject): string | undefined {
  const ui = uiMeta(tool);
  if (typeof ui?.resourceUri === 'string') return ui.resourceUri;
  const flat = isObject(tool._meta) ? tool._meta['ui/resourceUri'] : undefined;
  return typeof flat === 'string' ? flat : undefined;
}

/** Whether a model may see the tool: `visibility` absent (default ["model", "app"]) or naming "model". */
export function modelVisible(tool: JsonObject): boolean {
  const v = uiMeta(tool)?.visibility;
  return !Array.isArray(v) || v.includes('model');
}

/** A tool with its app URIs (both spellings) mapped by `f`; the tool itself where nothing changes. */
export function withAppUri(tool: JsonObject, f: (uri: string) => string): JsonObject {
  const meta = tool._meta;
  if (!isObject(meta)) return tool;
  let out = meta;
  const ui = uiMeta(tool);
  if (ui && typeof ui.resourceUri === 'string' && f(ui.resourceUri) !== ui.resourceUri)
    out = { ...out, ui: { ...ui, resourceUri: f(ui.resourceUri) } };
  const flat = meta['ui/resourceUri'];
  if (typeof flat === 'string' && f(flat) !== flat) out = { ...out, 'ui/resourceUri': f(flat) };
  return out === meta ? tool : { ...tool, _meta: out };
}
