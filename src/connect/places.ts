// Where a client keeps its file depends on the OS, the home folder and a few variables. They come in as
// one value (Places), made once at the entry (here.ts), so every client's location is a pure function
// that the tests run for Linux, macOS and Windows on any machine.
import { posix, win32 } from 'node:path';

export type Os = 'linux' | 'darwin' | 'win32';

export interface Places {
  readonly os: Os;
  readonly home: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** %APPDATA% (the roaming folder) on Windows; undefined elsewhere. */
  readonly appData?: string;
}

/** Path segments joined as this OS joins them. */
export function joinFor(p: Places, ...parts: string[]): string {
  return (p.os === 'win32' ? win32 : posix).join(...parts);
}

/** A variable's value, when it is set and not empty. */
export const envOf = (p: Places, name: string): string | undefined => p.env[name] || undefined;

/** $XDG_CONFIG_HOME, else ~/.config: where the XDG-following clients keep their files (on every OS for
 *  those that say so: Zed on macOS, opencode everywhere). */
export const xdgConfig = (p: Places): string => envOf(p, 'XDG_CONFIG_HOME') ?? joinFor(p, p.home, '.config');

/** An application's per-user settings folder: ~/Library/Application Support on macOS, %APPDATA% on
 *  Windows, the XDG config folder on Linux. */
export function appSettings(p: Places): string {
  if (p.os === 'darwin') return joinFor(p, p.home, 'Library', 'Application Support');
  if (p.os === 'win32') return p.appData ?? joinFor(p, p.home, 'AppData', 'Roaming');
  return xdgConfig(p);
}
