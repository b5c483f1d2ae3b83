// Settings of mcpx's own processes: the stdio shim, the log, the daemon.
import { D, type SettingDef } from './def';

export const PROCESSES: readonly SettingDef[] = [
  D(
    'shim.reconnectFor',
    'duration',
    30_000,
    'How long a stdio shim keeps trying to reach a gateway again after it went away before it exits.',
  ),
  D(
    'shim.sshCommand',
    'string',
    'mcpx',
    'The command that runs mcpx on the far host of `--connect ssh://host` (space-separated words).',
  ),
  D('log.level', 'string', 'info', 'Gateway log level: debug, info, warning, error.'),
  D(
    'daemon.idleExit',
    'duration',
    0,
    '`mcpx daemon` exits after this long with no MCP or /v1 request, no open session and no open stream (0: never).',
  ),
  D(
    'shim.daemonIdleExit',
    'duration',
    600_000,
    'The daemon.idleExit of a daemon a stdio shim or `mcpx tools`/`call`/`read`/`exec` starts in the background when no gateway is running.',
  ),
];
