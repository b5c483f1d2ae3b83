// The tool picker of mcpx: Call Tool… (docs/gateway.md "Tool search"): every tool the editor's endpoint
// offers (of one server, or of all), and, as the person types what the tool should do, the gateway's tool
// search — mcpx_search's ranking over the same index (GatewayFacade.searchTools), so "remove a relation"
// finds delete_relations here as it does for an agent; a query no tool matches well says so.
import type { Found, GatewayFacade } from '../../gateway/editorPort';
import { oneLine } from '../../gateway/search/index';
import { editorContext } from '../editorCall';
import type { EditorWindow } from '../ports';

type Window = Pick<EditorWindow, 'createQuickPick'>;

/** A row: a tool (with its server and name), or a line that says something and picks nothing. */
interface Row {
  label: string;
  description?: string;
  detail?: string;
  alwaysShow?: boolean;
  tool?: { server: string; name: string };
}

/** Hits shown for one query, at most (mcpx_search's own bound). */
const LIMIT = 50;
/** A search runs once typing pauses this long. */
const SETTLE_MS = 120;

/** A search's rows: its hits, shown whatever VS Code's own filter makes of them (they are the search's
 *  answer), or the line that says nothing matches well; a server that could not list, named. */
function rows(found: Found, ranked: boolean, oneServer: boolean): Row[] {
  const out: Row[] = found.hits.map((h) => ({
    label: h.name,
    description: [oneServer ? '' : h.server, typeof h.tool.title === 'string' ? h.tool.title : '']
      .filter(Boolean)
      .join(' · '),
    detail: oneLine(h.tool.description),
    alwaysShow: ranked,
    tool: { server: h.server, name: h.name },
  }));
  if (ranked && out.length === 0)
    out.push({
      label: 'No tool matches this well: try other words, or clear the box to see every tool.',
      alwaysShow: true,
    });
  for (const e of found.errors)
    out.push({ label: `${String(e.server)} could not list its tools`, detail: oneLine(e.error), alwaysShow: true });
  return out;
}

/** The tool the person picks, of `server` or of any offered server; undefined when dismissed. */
export function pickTool(
  g: GatewayFacade,
  window: Window,
  server?: string,
): Promise<{ server: string; name: string } | undefined> {
  const qp = window.createQuickPick<Row>();
  qp.title = server ? `mcpx: a tool of ${server}` : 'mcpx: find a tool';
  qp.placeholder = 'What should it do? In your words (tool search), or its name';
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  let every: Row[] = [];
  /** The latest search asked: an answer to an older one is dropped. */
  let asked = 0;
  let timer: NodeJS.Timeout | undefined;
  const search = async (query: string) => {
    const mine = ++asked;
    qp.busy = true;
    try {
      const found = await g.searchTools(query, { server, limit: LIMIT }, editorContext());
      if (mine !== asked) return;
      const ranked = query.trim() !== '';
      qp.items = rows(found, ranked, server !== undefined);
      if (!ranked) every = qp.items as Row[];
    } catch (e) {
      if (mine === asked) qp.items = [{ label: `The tool search failed: ${(e as Error).message}`, alwaysShow: true }];
    } finally {
      if (mine === asked) qp.busy = false;
    }
  };
  return new Promise((resolve) => {
    qp.onDidChangeValue((value) => {
      clearTimeout(timer);
      if (value.trim() === '') {
        asked++;
        qp.busy = false;
        qp.items = every;
        return;
      }
      timer = setTimeout(() => void search(value), SETTLE_MS);
    });
    qp.onDidAccept(() => {
      const tool = qp.selectedItems[0]?.tool;
      if (!tool) return;
      resolve(tool);
      qp.hide();
    });
    qp.onDidHide(() => {
      clearTimeout(timer);
      resolve(undefined);
      qp.dispose();
    });
    void search('');
    qp.show();
  });
}
