// mcpx: Get Prompt… — a prompt of any server picked, its arguments asked through the form flow (a schema
// made of its string arguments), its messages in a read-only editor.
import { type JsonObject, isObject } from '../../protocol/jsonrpc';
import { editorContext } from '../editorCall';
import { argumentsFor } from './ask';
import { gatewayCommand } from './command';

export const getPrompt = gatewayCommand(async (d, g) => {
  const ctx = editorContext();
  const prompts = await g.listPrompts(ctx).catch((e: Error) => void d.window.showErrorMessage(`mcpx: ${e.message}`));
  if (!prompts) return;
  const pick = await d.window.showQuickPick(
    prompts.map((p) => ({
      label: String(p.name),
      description: typeof p.title === 'string' ? p.title : undefined,
      detail: typeof p.description === 'string' ? p.description : undefined,
      p,
    })),
    { title: 'mcpx: a prompt' },
  );
  if (!pick) return;
  const args = Array.isArray(pick.p.arguments) ? (pick.p.arguments as JsonObject[]) : [];
  const values = args.length
    ? await argumentsFor(d.person, d.window, 'mcpx', { name: pick.p.name, inputSchema: schemaOf(args) })
    : {};
  if (!values) return;
  const name = String(pick.p.name);
  try {
    const r = await g.getPrompt(name, values as Record<string, string>, ctx);
    const msgs = (r.messages as JsonObject[]) ?? [];
    await d.results.show(name, {
      content: msgs.map((m) => ({
        type: 'text',
        text: `${String(m.role)}: ${isObject(m.content) && typeof m.content.text === 'string' ? m.content.text : JSON.stringify(m.content)}`,
      })),
      messages: msgs,
    });
  } catch (e) {
    void d.window.showErrorMessage(`mcpx: ${name}: ${(e as Error).message}`);
  }
});

/** Prompt arguments are strings: a flat schema of them. */
const schemaOf = (args: JsonObject[]) => ({
  type: 'object',
  properties: Object.fromEntries(
    args.map((a) => [String(a.name), { type: 'string', title: String(a.title ?? a.name), description: a.description }]),
  ),
  required: args.filter((a) => a.required === true).map((a) => String(a.name)),
});
