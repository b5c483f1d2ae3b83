// Settings of the protocol's longer exchanges: questions, their messages, tasks.
import { MODERN } from '../../protocol/revisions';
import { D, type SettingDef } from './def';

export const PROTO: readonly SettingDef[] = [
  D('proto.native', 'boolean', true, 'Ask the calling client first when an upstream asks a question.'),
  D('proto.askTimeout', 'duration', 600_000, 'Longest one client request may be held for a question.'),
  D('proto.askRounds', 'integer', 8, 'How many times one call may come back asking.', { min: 1 }),
  D('proto.stateTTL', 'duration', 1_800_000, 'How long a requestState may be resumed with.'),
  D(
    'proto.askTTL',
    'duration',
    900_000,
    "A background call still waiting after this is cancelled; a finished one's result is kept this long.",
  ),
  D('protoMessages.listMaxAge', 'duration', 60_000, `ttlMs of list results and server/discover (${MODERN}).`),
  D('protoMessages.readMaxAge', 'duration', 0, `ttlMs of resources/read results (${MODERN}).`),
  D(
    'protoMessages.taskAfter',
    'duration',
    5_000,
    `How long a ${MODERN} call to a tool that declares no task support may run before it becomes a task (only for a client that declared the tasks extension and answers no questions inline).`,
  ),
  D(
    'proto.taskPollInterval',
    'duration',
    500,
    'The polling interval mcpx suggests for its tasks (pollInterval, pollIntervalMs).',
  ),
  D(
    'tasks.adminAccess',
    'boolean',
    false,
    'A /v1/tasks request that names no identity (Mcpx-Identity, Mcp-Session-Id) sees, and may cancel, every task of every client: `mcpx tasks --all`. Off, it is refused (400).',
  ),
];
