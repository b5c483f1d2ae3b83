// mcpx: Read Resource… — a resource of any server picked, its contents in a read-only editor (text as
// it is; a binary one named by its type and size).
import type { JsonObject } from '../../protocol/jsonrpc';
import { editorContext } from '../editorCall';
import { gatewayCommand } from './command';

export const readResource = gatewayCommand(async (d, g) => {
  const resources = await g
    .listResources(editorContext())
    .catch((e: Error) => void d.window.showErrorMessage(`mcpx: ${e.message}`));
  if (!resources) return;
  const pick = await d.window.showQuickPick(
    resources.map((r) => ({
      label: String(r.name ?? r.uri),
      description: String(r.uri),
      detail: typeof r.description === 'string' ? r.description : undefined,
      uri: String(r.uri),
    })),
    { title: 'mcpx: a resource to read', matchOnDescription: true },
  );
  if (!pick) return;
  try {
    const r = await g.readResource(pick.uri, editorContext());
    const contents = (r.contents as JsonObject[]) ?? [];
    await d.results.show(pick.uri, { content: contents.map(asText), contents });
  } catch (e) {
    void d.window.showErrorMessage(`mcpx: ${pick.uri}: ${(e as Error).message}`);
  }
});

const asText = (c: JsonObject) =>
  typeof c.text === 'string'
    ? { type: 'text', text: c.text }
    : {
        type: 'text',
        text: `[${String(c.mimeType ?? 'binary')} content, ${String(c.blob ?? '').length} base64 characters]`,
      };
