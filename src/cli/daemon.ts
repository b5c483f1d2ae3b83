// `mcpx daemon`: the gateway on Streamable HTTP, headless (README.md "The command line").
import { type Listening, beyondLoopback, listen } from '../app/app';
import { gatewayRoutes, reloadRoute } from '../app/routes';
import { defaultConfigPath, defaultStateDir } from '../config/paths';
import { endpointSecret } from '../config/secret';
import type { Settings } from '../config/settings';
import { activityDir } from '../gateway/activity/files';
import { Gateway } from '../gateway/gateway';
import { type ConfigDiff, ReloadError, describeDiff } from '../gateway/reload';
import { publishDaemon, unpublishDaemon } from '../shim/resolve';
import { type Args, SETTING_FLAGS } from './args';
import type { Command } from './command';
import { system } from '../platform';
import { configOf, reportIssues, settingsOf } from './config';
import { followConfig, serversLine } from './follow';
import { type Team, openTeam } from '../team/team';

export const daemon: Command = {
  usage: [
    [
      'daemon [--port N] [--address ADDR] [--config FILE] [--passthrough a,b] [--mcp-spec REV] [--store URL] [--set key=value]',
    ],
  ],
  flags: ['config', 'store', ...SETTING_FLAGS],
  run,
};

async function run(a: Args): Promise<void> {
  const config = configOf(a);
  reportIssues(config);
  const settings = settingsOf(config, a);
  const stateDir = defaultStateDir(process.env);
  const log = (l: string) => process.stderr.write(`${l}\n`);
  // A team's replica (docs/team.md): its state in the store store.url names, shared with the others.
  let team: Team | undefined;
  try {
    team = await openTeam({ settings, log });
  } catch (e) {
    throw new Error(`cannot join the team's store: ${(e as Error).message}`);
  }
  const gateway = new Gateway(config, settings, {
    log,
    stateDir,
    ...(team ? team.gatewayOptions() : { activity: { dir: activityDir(stateDir), writer: 'daemon' } }),
  });
  // The config file read again and applied in place (docs/gateway.md "Changing the configuration"):
  // on a change on disk, SIGHUP (where there is one: not Windows), or POST /v1/reload (`mcpx reload`). A file that cannot be read or
  // holds a problem is refused whole: the running configuration stays, and the log says why.
  const reload = async (why: string): Promise<ConfigDiff> => {
    try {
      let next: ReturnType<typeof configOf>;
      let nextSettings: Settings;
      try {
        next = configOf(a);
        nextSettings = settingsOf(next, a);
      } catch (e) {
        throw new ReloadError([(e as Error).message], a.config ?? 'file');
      }
      const diff = await gateway.reload(next, nextSettings);
      process.stderr.write(`mcpx: ${why}: ${describeDiff(diff)}\n`);
      return diff;
    } catch (e) {
      process.stderr.write(`mcpx: ${why}: ${(e as Error).message}\n`);
      throw e;
    }
  };
  // The install's endpoint secret (docs/security.md "The endpoint secret"), shared with the editor.
  const secret = settings.get<boolean>('transport.secret')
    ? team
      ? await team.endpointSecret()
      : endpointSecret(stateDir)
    : undefined;
  const address = settings.get<string>('address');
  const warning = beyondLoopback(address);
  if (warning) process.stderr.write(`mcpx: ${warning}\n`);
  let l: Listening;
  try {
    l = await listen({
      provider: gateway,
      settings,
      routes: [...gatewayRoutes(gateway), reloadRoute(() => reload('mcpx reload'))],
      log: (x) => process.stderr.write(`${x}\n`),
      secret,
      stateDir,
      journalDir: stateDir,
      team: team?.ports(gateway),
    });
  } catch (e) {
    await team?.stop();
    const err = e as NodeJS.ErrnoException;
    const why =
      err.code === 'EADDRINUSE' ? `port ${settings.get('port')} is in use (use --port 0 for a free one)` : err.message;
    throw new Error(`cannot listen on ${address}: ${why}`);
  }
  // The URL that works, secret included: on the user's own stdout, where they look for it (never a log).
  // <state>/daemon.json: how a stdio shim or `mcpx call` finds this daemon (src/shim/resolve.ts).
  await team?.start(l);
  publishDaemon(stateDir, l.endpoint);
  process.stdout.write(`mcpx listening on ${l.endpoint}\n`);
  const file = a.config ?? defaultConfigPath(process.env);
  process.stdout.write(`mcpx ${serversLine(file, config.servers.length, config.source !== 'embedded default')}\n`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    unfollow();
    for (const s of system.signals.reload) process.off(s, onHup);
    unpublishDaemon(stateDir);
    await l.close();
    await team?.stop();
    await gateway.close();
    process.exit(0);
  };
  const unfollow = followConfig(
    file,
    () => reload('the config file changed').catch(() => undefined),
    (l) => process.stderr.write(`mcpx: ${l}\n`),
  );
  const onHup = (s: NodeJS.Signals) => void reload(s).catch(() => undefined);
  for (const s of system.signals.reload) process.on(s, onHup);
  // Ctrl+C, and on Windows Ctrl+Break and the console's close: a clean stop (docs/platforms.md "Signals").
  for (const s of system.signals.stop) process.once(s, () => void stop());
  exitWhenIdle(l, settings, stop);
}

/** daemon.idleExit: no request, no session and no open stream for that long, and the daemon exits. */
function exitWhenIdle(l: Listening, settings: Settings, stop: () => Promise<void>): void {
  const idle = settings.duration('daemon.idleExit');
  if (idle <= 0) return;
  const timer = setInterval(
    () => {
      if (!l.http.busy && Date.now() - l.http.lastActivity >= idle) void stop();
    },
    Math.max(10, Math.min(idle / 4, 30_000)),
  );
  timer.unref();
}
