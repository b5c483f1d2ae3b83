// Linux: the XDG places, process groups and the reaper wrapper, mode bits, bubblewrap.
import { join } from 'node:path';
import type { Platform } from './platform';
import { posixBase } from './posix';

export const linux: Platform = {
  ...posixBase,
  os: 'linux',
  places(env, home) {
    const configHome = env.XDG_CONFIG_HOME || join(home, '.config');
    const stateHome = env.XDG_STATE_HOME || join(home, '.local', 'state');
    return {
      os: 'linux',
      home,
      appData: configHome,
      localAppData: stateHome,
      configHome,
      stateDir: join(stateHome, 'mcpx'),
      configFile: join(configHome, 'mcpx', 'mcp.json'),
      launcherDir: join(home, '.local', 'bin'),
    };
  },
  sandbox: { kind: 'bubblewrap' },
  openUrl: (url, env) => (env.DISPLAY || env.WAYLAND_DISPLAY ? ['xdg-open', url] : undefined),
};
