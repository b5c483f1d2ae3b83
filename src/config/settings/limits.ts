// Settings that bound what the gateway holds: batches, responses, instances, sessions, identities, tasks,
// questions, calls in flight (docs/security.md "Bounds").
import { MODERN } from '../../protocol/revisions';
import { D, type SettingDef } from './def';

export const LIMITS: readonly SettingDef[] = [
  D(
    'limits.batchLength',
    'integer',
    64,
    'Most messages in one JSON-RPC batch; a longer one is refused whole (-32600).',
    { min: 1 },
  ),
  D(
    'limits.responseBytes',
    'integer',
    32 * 1024 * 1024,
    'Largest response written for one request or one batch; a response past it is replaced by an error.',
    {
      min: 1024,
    },
  ),
  D('limits.paramsDepth', 'integer', 64, 'Deepest nesting of objects and arrays in a message (-32602 beyond).', {
    min: 8,
  }),
  D(
    'limits.instancesPerServer',
    'integer',
    8,
    'Most instances of one `scope: "identity"` server running at once, or of one server per extension set its clients declared; beyond, the least recently used idle one is stopped, or the call is refused.',
    {
      min: 1,
    },
  ),
  D(
    'limits.sessions',
    'integer',
    1024,
    'Most legacy HTTP sessions held at once; beyond, a new initialize is refused (-32603) and no session is ended for it.',
    {
      min: 1,
    },
  ),
  D(
    'limits.identitiesPerConnection',
    'integer',
    16,
    'Most identities one client connection may name in _meta["dev.mcpx/session"] (-32602 beyond).',
    {
      min: 1,
    },
  ),
  D(
    'limits.backgroundPerIdentity',
    'integer',
    64,
    `Most ${MODERN} background calls one identity may hold at once; beyond, a new call is refused.`,
    { min: 1 },
  ),
  D(
    'limits.tasks',
    'integer',
    4096,
    'Most tasks the gateway holds, running or kept after they ended (proto.askTTL); beyond, a new task is refused (-32603).',
    { min: 1 },
  ),
  D(
    'limits.tasksPerIdentity',
    'integer',
    32,
    'Most running tasks one identity may hold at once; beyond, a new task is refused (-32603). Ended ones do not count.',
    { min: 1 },
  ),
  D(
    'limits.questionsPerIdentity',
    'integer',
    32,
    'Most questions waiting at the broker for one identity at once; beyond, a new question is refused.',
    { min: 1 },
  ),
  D(
    'limits.inflightPerIdentity',
    'integer',
    256,
    'Most requests of one identity running at once; more wait their turn.',
    {
      min: 1,
    },
  ),
  D(
    'limits.upstreamInflight',
    'integer',
    32,
    'Most calls running at once on one upstream instance before calls wait; the waiting calls are sent in turn, one client at a time (a client with none running on it never waits).',
    { min: 1 },
  ),
  D(
    'limits.upstreamQueuePerIdentity',
    'integer',
    256,
    'Most calls one client identity may have waiting for one upstream instance (limits.upstreamInflight); beyond, a new call is refused (-32603).',
    { min: 1 },
  ),
  D(
    'limits.inflight',
    'integer',
    2048,
    'Most requests running or waiting at once in the gateway (beyond, new ones are refused); also the most background calls held and questions waiting at the broker.',
    {
      min: 16,
    },
  ),
];
