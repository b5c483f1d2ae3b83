// The webview form: for a schema richer than the QuickPick flow takes (nested objects, arrays). Its page
// is webview/form.js (VS Code's look through @vscode-elements/elements), bundled by esbuild.mjs into
// dist/webview/. Strict CSP (nothing but that script by nonce and its stylesheet), localResourceRoots =
// dist/webview/, and typed messages checked with zod both ways. The answer is validated against the
// schema here; an invalid one goes back to the form with the reason, field by field (shown beside each
// field), and is never returned.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { z } from 'zod';
import type { JsonObject } from '../protocol/jsonrpc';
import { schemaMismatch, schemaProblems } from '../kit/schema';

const FromForm = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('submit'), content: z.record(z.string(), z.unknown()) }),
  z.object({ type: z.literal('decline') }),
  z.object({ type: z.literal('cancel') }),
]);

export type FormAnswer =
  | { action: 'accept'; content: JsonObject }
  | { action: 'decline' }
  | { action: 'cancel' }
  | undefined;

export class FormWithdrawn extends Error {}

function html(webview: vscode.Webview, media: vscode.Uri): string {
  const nonce = randomBytes(16).toString('base64');
  const src = (f: string) => webview.asWebviewUri(vscode.Uri.joinPath(media, f)).toString();
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${webview.cspSource}; script-src 'nonce-${nonce}';">
<link rel="stylesheet" href="${src('form.css')}"><title>mcpx</title></head>
<body><h2 id="title"></h2><form id="form"></form><p id="problem" role="alert"></p>
<div class="actions"><vscode-button id="accept">Accept</vscode-button><vscode-button id="decline" secondary>Decline</vscode-button><vscode-button id="cancel" secondary>Cancel</vscode-button></div>
<p class="keys">Tab moves between fields · Enter or Ctrl+Enter accepts</p>
<script nonce="${nonce}" src="${src('form.js')}"></script></body></html>`;
}

export function askInWebview(
  extensionUri: vscode.Uri,
  title: string,
  schema: JsonObject,
  signal: AbortSignal,
): Promise<FormAnswer> {
  const media = vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
  const panel = vscode.window.createWebviewPanel('mcpx.form', title, vscode.ViewColumn.Active, {
    enableScripts: true,
    localResourceRoots: [media],
    retainContextWhenHidden: true,
  });
  panel.webview.html = html(panel.webview, media);
  return new Promise<FormAnswer>((resolve, reject) => {
    let settled = false;
    const finish = (a: FormAnswer | Error) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      panel.dispose();
      if (a instanceof Error) reject(a);
      else resolve(a);
    };
    const onAbort = () => finish(new FormWithdrawn());
    signal.addEventListener('abort', onAbort, { once: true });
    // Closing the panel without choosing is a dismissal: the question stays pending (Questions view).
    panel.onDidDispose(() => finish(undefined));
    panel.webview.onDidReceiveMessage((raw: unknown) => {
      const m = FromForm.safeParse(raw);
      if (!m.success) return; // not one of ours: ignored
      if (m.data.type === 'ready') return void panel.webview.postMessage({ type: 'init', title, schema });
      if (m.data.type !== 'submit') return finish({ action: m.data.type });
      const bad = schemaMismatch(schema, m.data.content);
      if (bad)
        return void panel.webview.postMessage({
          type: 'invalid',
          reason: bad,
          fields: schemaProblems(schema, m.data.content),
        });
      finish({ action: 'accept', content: m.data.content as JsonObject });
    });
  });
}
