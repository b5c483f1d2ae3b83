// The Subscriptions view: each resource watched upstream — its URI, upstream, watchers, last update.
import type { GatewayState } from '../ports';
import { type RowKit, RowsTree, ago } from './rows';

export function subscriptionsTree(host: GatewayState, kit: RowKit): RowsTree {
  return new RowsTree(kit, [host.onDidChange], () =>
    (host.gateway?.watches() ?? []).map((w) => ({
      label: w.uri,
      description: `${w.server} · ${w.watchers} watcher${w.watchers === 1 ? '' : 's'}${w.lastUpdate ? ` · updated ${ago(w.lastUpdate)}` : ''}`,
      tooltip: `${w.uri} on ${w.server}`,
    })),
  );
}
