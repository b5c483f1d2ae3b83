// mcpx: Filter Activity… — the Activity view narrowed to one client or one server, or every call again.
import type { ActivityFilter } from '../../gateway/editorPort';
import { gatewayCommand } from './command';

export const filterActivity = gatewayCommand(async (d, g) => {
  const all = g.activity.recent();
  const unique = (xs: string[]) => [...new Set(xs)].sort();
  const items: Array<{ label: string; description?: string; filter: ActivityFilter }> = [
    { label: 'Every call', filter: {} },
    ...unique(all.map((r) => r.client.name ?? r.client.identity)).map((c) => ({
      label: c,
      description: 'client',
      filter: { client: c },
    })),
    ...unique(all.map((r) => r.server)).map((s) => ({ label: s, description: 'server', filter: { server: s } })),
  ];
  const pick = await d.window.showQuickPick(items, { title: 'mcpx: show the calls of', matchOnDescription: true });
  if (pick) d.activity.setFilter(pick.filter);
  return pick?.filter;
});
