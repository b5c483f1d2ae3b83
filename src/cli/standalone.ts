// `mcpx serve --transport stdio --standalone`: a whole gateway in this process, on its own stdin and
// stdout (src/transport/stdio.ts), instead of a shim onto a running one.
import { makeServer } from '../app/app';
import { defaultStateDir } from '../config/paths';
import { activityDir } from '../gateway/activity/files';
import { Gateway } from '../gateway/gateway';
import { StdioTransport } from '../transport/stdio';
import type { Args } from './args';
import { configOf, reportIssues, settingsOf } from './config';
import { profileFlag } from './serveUsage';

export async function standalone(a: Args): Promise<void> {
  const config = configOf(a);
  reportIssues(config);
  const settings = settingsOf(config, a);
  const stateDir = defaultStateDir(process.env);
  const gateway = new Gateway(config, settings, {
    log: (l) => process.stderr.write(`${l}\n`),
    stateDir,
    activity: { dir: activityDir(stateDir), writer: `standalone-${process.pid}` },
  });
  if (a.profile !== undefined && !gateway.hasProfile(a.profile)) {
    process.stderr.write(
      `mcpx: no profile named ${JSON.stringify(a.profile)} in ${config.source}; configured: ${[...gateway.profiles.configured.keys()].join(', ') || 'none'}\n`,
    );
    await gateway.close();
    process.exit(2);
  }
  const server = makeServer(gateway, settings);
  const t = new StdioTransport({
    server,
    profile: profileFlag(a.profile),
    input: process.stdin,
    output: process.stdout,
    drainMs: settings.duration('transport.stdioDrain'),
  });
  process.once('SIGTERM', () => {
    // Listen streams end first (notifications/cancelled, then the result), then the upstreams stop.
    server.close();
    setTimeout(() => void gateway.close().then(() => process.exit(0)), 100);
  });
  await t.closed;
  server.close();
  await gateway.close();
  process.exit(0);
}
