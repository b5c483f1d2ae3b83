// Both stores (src/store/), two instances of each on one place, as two replicas (or two processes) see
// it: local files in a fresh directory under `root`, and the real Redis at `redisUrl` under a fresh prefix.
import { join } from 'node:path';
import { openStore } from '../../src/store/open';
import type { Store } from '../../src/store/store';

export type StorePair = () => Promise<[Store, Store]>;

let n = 0;

export function storePairs(root: string, redisUrl: () => string, log: (l: string) => void): Array<[string, StorePair]> {
  return [
    [
      'files',
      async () => {
        const url = `file://${join(root, `s${++n}`)}`;
        return [await openStore({ url, prefix: '', log }), await openStore({ url, prefix: '', log })];
      },
    ],
    [
      'redis',
      async () => {
        const prefix = `{t${++n}}:`;
        const url = redisUrl();
        return [await openStore({ url, prefix, log }), await openStore({ url, prefix, log })];
      },
    ],
  ];
}
