// Both stores (src/store/), two instances of each on one place, as two replicas (or two processes) see
// it: local files in a fresh directory under `root`, the real Redis at `redisUrl` and, where given, the
// Redis Cluster at `clusterUrl`, each under a fresh prefix (a hash tag: one slot).
import { join } from 'node:path';
import { openStore } from '../../src/store/open';
import type { Store } from '../../src/store/store';

export type StorePair = () => Promise<[Store, Store]>;

let n = 0;

export function storePairs(
  root: string,
  redisUrl: () => string,
  log: (l: string) => void,
  clusterUrl?: () => string,
): Array<[string, StorePair]> {
  const redis = (name: string, url: () => string): [string, StorePair] => [
    name,
    async () => {
      const prefix = `{t${++n}}:`;
      return [await openStore({ url: url(), prefix, log }), await openStore({ url: url(), prefix, log })];
    },
  ];
  return [
    [
      'files',
      async () => {
        const url = `file://${join(root, `s${++n}`)}`;
        return [await openStore({ url, prefix: '', log }), await openStore({ url, prefix: '', log })];
      },
    ],
    redis('redis', redisUrl),
    ...(clusterUrl ? [redis('redis cluster', clusterUrl)] : []),
  ];
}
