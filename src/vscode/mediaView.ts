// Images and audio of a tool result, rendered in a webview beside its text (the text editor shows the
// rest). Nothing is fetched: the CSP allows data: images and media only, and no script at all.
import * as vscode from 'vscode';
import type { JsonObject } from '../protocol/jsonrpc';

const SAFE_MIME = /^(image\/(png|jpeg|gif|webp|svg\+xml)|audio\/(wav|x-wav|mpeg|ogg|webm|mp4))$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The image and audio blocks of a result; none, no panel. */
export function mediaBlocks(content: JsonObject[]): JsonObject[] {
  return content.filter(
    (b) =>
      (b.type === 'image' || b.type === 'audio') &&
      typeof b.data === 'string' &&
      typeof b.mimeType === 'string' &&
      SAFE_MIME.test(b.mimeType) &&
      BASE64.test(b.data),
  );
}

export function showMedia(title: string, blocks: JsonObject[]): vscode.WebviewPanel {
  const panel = vscode.window.createWebviewPanel(
    'mcpx.result',
    `${title}: media`,
    { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
    { enableScripts: false, localResourceRoots: [] },
  );
  const items = blocks.map((b) => {
    const src = `data:${String(b.mimeType)};base64,${String(b.data)}`;
    return b.type === 'image'
      ? `<figure><img alt="image" src="${esc(src)}"><figcaption>${esc(String(b.mimeType))}</figcaption></figure>`
      : `<figure><audio controls src="${esc(src)}"></audio><figcaption>${esc(String(b.mimeType))}</figcaption></figure>`;
  });
  panel.webview.html = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; media-src data:; style-src 'unsafe-inline';">
<style>img{max-width:100%;image-rendering:pixelated;min-width:32px;border:1px solid #8884}figure{margin:1em 0}</style></head>
<body><h3>${esc(title)}</h3>${items.join('\n')}</body></html>`;
  return panel;
}
