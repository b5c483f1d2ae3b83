// What the editor reads of an MCP App (the `io.modelcontextprotocol/ui` extension, MCP Apps 2026-01-26,
// the types of @modelcontextprotocol/ext-apps `spec.types`): a tool's app resource URI, whether the app
// may call a tool, the HTML of the `ui://` resource, and the Content Security Policy its document gets.
// Pure data, no `vscode`: the unit tests run it in plain Node (test/gateway/apps.test.ts).
import { APP_MIME } from '../../protocol/extensions';
import { type JsonObject, isObject } from '../../protocol/jsonrpc';
/** An app's HTML past this many bytes is refused (a page, not a data dump). */
const MAX_HTML_BYTES = 5 * 1024 * 1024;
const MAX_URI = 2048;
/** Domains per CSP list, at most. */
const MAX_DOMAINS = 32;

/** The `ui://` resource a tool's app lives at: `_meta.ui.resourceUri`, or the deprecated flat
 *  `_meta["ui/resourceUri"]` (MCP Apps: hosts check both). Anything but a `ui://` URI is no app. */
export function appResourceUri(tool: unknown): string | undefined {
  const meta = isObject(tool) && isObject(tool._meta) ? tool._meta : undefined;
  if (!meta) return undefined;
  const uri = isObject(meta.ui) && meta.ui.resourceUri !== undefined ? meta.ui.resourceUri : meta['ui/resourceUri'];
  return typeof uri === 'string' && uri.startsWith('ui://') && uri.length <= MAX_URI ? uri : undefined;
}

/** Whether the app may call this tool: `_meta.ui.visibility` lists `app`, or is absent (default
 *  `["model", "app"]`). A tool meant only for the model is not the app's to call. */
export function callableByApp(tool: unknown): boolean {
  const ui = isObject(tool) && isObject(tool._meta) && isObject(tool._meta.ui) ? tool._meta.ui : undefined;
  return !Array.isArray(ui?.visibility) || ui.visibility.includes('app');
}

export interface AppResource {
  readonly html: string;
  /** The content item's `_meta.ui` (csp, permissions, prefersBorder), as the server sent it. */
  readonly ui: JsonObject;
}

/** The app's HTML out of a `resources/read` result: the item of the app's MIME type (text, or a base64
 *  blob), else a reason. The resource's `_meta.ui` is read from the content item (MCP Apps: hosts read
 *  csp and permissions from there). */
export function appResource(read: unknown): AppResource | { problem: string } {
  const contents = isObject(read) && Array.isArray(read.contents) ? read.contents : [];
  const item = contents.find(
    (c): c is JsonObject => isObject(c) && typeof c.mimeType === 'string' && c.mimeType.replace(/\s/g, '') === APP_MIME,
  );
  if (!item) return { problem: `the resource has no ${APP_MIME} content` };
  const html =
    typeof item.text === 'string'
      ? item.text
      : typeof item.blob === 'string'
        ? Buffer.from(item.blob, 'base64').toString('utf8')
        : undefined;
  if (html === undefined) return { problem: 'the app content has neither text nor blob' };
  if (Buffer.byteLength(html) > MAX_HTML_BYTES) return { problem: `the app's HTML is over ${MAX_HTML_BYTES} bytes` };
  const ui = isObject(item._meta) && isObject(item._meta.ui) ? item._meta.ui : {};
  return { html, ui };
}

/** An origin as a CSP source may name it: scheme, host (a leading `*.` allowed), optional port — no
 *  path, quote, keyword or separator, so a server's list cannot widen the policy beyond those hosts. */
const ORIGIN = /^(https?|wss?):\/\/(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:\d{1,5})?$/;

/** The valid origins of one `_meta.ui.csp` list (the rest dropped). */
function origins(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.filter((d): d is string => typeof d === 'string' && ORIGIN.test(d)).slice(0, MAX_DOMAINS);
}

export type CspDirectives = Record<string, string[]>;

/** The app document's policy from the resource's `_meta.ui.csp` (McpUiResourceCsp): strict when it
 *  declares nothing — inline script and style only, no network, no frames (MCP Apps: an empty or absent
 *  list means none) — each declared list adding its origins to its directives. */
export function appCsp(ui: JsonObject): CspDirectives {
  const csp = isObject(ui.csp) ? ui.csp : {};
  const resources = origins(csp.resourceDomains);
  const or = (list: string[], none: string) => (list.length ? list : [none]);
  return {
    'default-src': ["'none'"],
    'script-src': ["'self'", "'unsafe-inline'", ...resources],
    'style-src': ["'self'", "'unsafe-inline'", ...resources],
    'img-src': ["'self'", 'data:', 'blob:', ...resources],
    'font-src': ["'self'", 'data:', ...resources],
    'media-src': ["'self'", 'data:', 'blob:', ...resources],
    'connect-src': or(origins(csp.connectDomains), "'none'"),
    'frame-src': or(origins(csp.frameDomains), "'none'"),
    'base-uri': or(origins(csp.baseUriDomains), "'self'"),
    'form-action': ["'none'"],
  };
}

export const renderCsp = (d: CspDirectives): string =>
  Object.entries(d)
    .map(([k, v]) => `${k} ${v.join(' ')}`)
    .join('; ');

/** The webview page that holds the app: the app's policy — a srcdoc frame inherits its parent's, so the
 *  page may allow no less than the app — plus the page's own script and style from `source`. */
export function pageCsp(app: CspDirectives, source: string): string {
  return renderCsp({
    ...app,
    'script-src': [...app['script-src']!, source],
    'style-src': [...app['style-src']!, source],
  });
}

const attr = (s: string) => s.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);

/** The app's HTML with its policy as the first thing in its head (a meta CSP applies from where it
 *  stands), so the frame enforces it on top of the one it inherits. */
export function withCsp(html: string, csp: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${attr(csp)}">`;
  const after = (m: RegExpExecArray, insert: string) =>
    html.slice(0, m.index + m[0].length) + insert + html.slice(m.index + m[0].length);
  const head = /<head(\s[^>]*)?>/i.exec(html);
  if (head) return after(head, meta);
  // No head: one made right after <html> or the doctype (before the doctype would turn on quirks mode).
  const top = /<html(\s[^>]*)?>/i.exec(html) ?? /<!doctype[^>]*>/i.exec(html);
  return top ? after(top, `<head>${meta}</head>`) : `<head>${meta}</head>${html}`;
}

/** The iframe `allow` attribute for what the resource asks (McpUiResourcePermissions); the sandbox's
 *  other capabilities stay off. */
export function allowAttribute(ui: JsonObject): string {
  const p = isObject(ui.permissions) ? ui.permissions : {};
  const features: Record<string, string> = {
    camera: 'camera',
    microphone: 'microphone',
    geolocation: 'geolocation',
    clipboardWrite: 'clipboard-write',
  };
  return Object.entries(features)
    .filter(([k]) => isObject(p[k]))
    .map(([, v]) => v)
    .join('; ');
}

/** VS Code's ColorThemeKind (1 light, 2 dark, 3 high contrast, 4 high contrast light; vscode.d.ts) in
 *  the app's terms (McpUiTheme: light or dark): a high-contrast theme by its ground. */
export const themeOf = (kind: number): 'light' | 'dark' => (kind === 1 || kind === 4 ? 'light' : 'dark');
