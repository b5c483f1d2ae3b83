// Results shown in read-only editors: a virtual document per result (nothing to save, nothing dirty) —
// its text blocks, then the whole result as JSON — and its images and audio beside it (mediaView.ts).
import * as vscode from 'vscode';
import type { JsonObject } from '../protocol/jsonrpc';
import type { Disposable } from './lifetimes';
import { mediaBlocks, showMedia } from './mediaView';
import type { ResultsPort } from './ports';

const RESULT_SCHEME = 'mcpx-result';
/** Only the newest results are kept. */
const KEPT = 20;

export class ResultDocuments implements ResultsPort, Disposable {
  private readonly results = new Map<string, string>();
  private seq = 0;
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(RESULT_SCHEME, {
    provideTextDocumentContent: (uri) => this.results.get(uri.path) ?? '',
  });

  async show(title: string, result: JsonObject): Promise<void> {
    const blocks = Array.isArray(result.content) ? (result.content as JsonObject[]) : [];
    const text = blocks
      .filter((b) => b.type === 'text')
      .map((b) => String(b.text))
      .join('\n\n');
    const body = `${text ? `${text}\n\n` : ''}// ${title}: the whole result\n${JSON.stringify(result, null, 2)}\n`;
    const path = `/${title.replace(/[^\w.-]+/g, '-')}-${++this.seq}.txt`;
    this.results.set(path, body);
    if (this.results.size > KEPT) this.results.delete(this.results.keys().next().value!);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: RESULT_SCHEME, path }));
    await vscode.window.showTextDocument(doc, { preview: true });
    const media = mediaBlocks(blocks);
    if (media.length) showMedia(title, media);
    if (result.isError === true)
      void vscode.window.showErrorMessage(`mcpx: ${title} returned an error: ${text.slice(0, 200)}`);
  }

  /** A value as a read-only JSON document (an approval's whole arguments, an activity record). */
  async showJson(title: string, value: unknown): Promise<void> {
    const path = `/${title.replace(/[^\w.-]+/g, '-')}-${++this.seq}.json`;
    this.results.set(path, `${JSON.stringify(value, null, 2)}\n`);
    if (this.results.size > KEPT) this.results.delete(this.results.keys().next().value!);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: RESULT_SCHEME, path }));
    await vscode.window.showTextDocument(doc, { preview: true });
  }

  dispose(): void {
    this.registration.dispose();
    this.results.clear();
  }
}
