// macOS: ~/Library/Application Support (the XDG places where XDG_* is set), process groups and the
// reaper wrapper as on Linux, mode bits, the system's Seatbelt sandbox (sandbox-exec).
import { join } from 'node:path';
import type { Platform } from './platform';
import { posixBase } from './posix';

export const darwin: Platform = {
  ...posixBase,
  os: 'darwin',
  places(env, home) {
    const support = join(home, 'Library', 'Application Support');
    const configHome = env.XDG_CONFIG_HOME || support;
    return {
      os: 'darwin',
      home,
      appData: support,
      localAppData: support,
      configHome,
      stateDir: join(env.XDG_STATE_HOME || support, 'mcpx'),
      configFile: join(configHome, 'mcpx', 'mcp.json'),
      launcherDir: join(home, '.local', 'bin'),
    };
  },
  sandbox: { kind: 'seatbelt' },
  openUrl: (url) => ['open', url],
};
