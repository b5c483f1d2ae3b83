// Settings of a team's store: several replicas of the gateway on one shared store (docs/team.md).
import { D, type SettingDef } from './def';

export const STORE: readonly SettingDef[] = [
  D(
    'store.url',
    'string',
    '',
    "The store a team's replicas share (docs/team.md): `redis://[user:password@]host:port[/db]` or `rediss://…` (Redis or Valkey), `redis+cluster://…` (a node of a Redis Cluster), or `file:///dir`. Empty: this gateway keeps its state in the state directory, as one person's does. `mcpx daemon --store URL`. `mcpx settings` does not print it (it may hold a password). Read at start.",
    { secret: true },
  ),
  D(
    'store.prefix',
    'string',
    '{mcpx}:',
    "What every key and channel of the store starts with: two teams' gateways on one Redis each have their own. Under Redis Cluster it must hold a hash tag (`{…}`), so that every key is in one slot. Read at start.",
  ),
  D(
    'store.key',
    'string',
    '',
    'The key the replicas seal secrets with in the store — upstream sign-ins, the endpoint secret, the requestState key — at least 32 characters, the same on every replica (e.g. `openssl rand -base64 32` in a Kubernetes Secret, given as MCPX_STORE_KEY); the store never holds it. Required with store.url. Read at start.',
    { secret: true },
  ),
  D(
    'store.advertise',
    'string',
    '',
    "The URL the other replicas reach this one at (`http://<pod IP>:8899`): a legacy session's requests and a request naming a task this replica runs are relayed there. Empty: `http://<address>:<port>`, with the host's name where address is `0.0.0.0` or `::`. Read at start.",
  ),
  D(
    'store.replicaTtl',
    'duration',
    15_000,
    'A replica not heard from for this long has stopped: its running tasks and calls read as failed, and its sessions as gone (404: the client initializes again). It renews itself three times within it. Read at start.',
    { min: 300 },
  ),
];
