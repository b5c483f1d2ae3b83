// The system this process runs on, chosen once: the only place mcpx reads process.platform
// (docs/platforms.md). Anything that is neither macOS nor Windows runs as Linux does (POSIX).
import { homedir } from 'node:os';
import { darwin } from './darwin';
import { linux } from './linux';
import type { OsName, Places, Platform } from './platform';
import { win32 } from './win32';

export type { Places, Platform, SpawnSpec } from './platform';
export { getEnv, setEnv } from './env';

const BY_OS: Record<OsName, Platform> = { linux, darwin, win32 };

/** The implementation for `os` (tests take the others' decisions through it). */
export const platformFor = (os: string): Platform => BY_OS[os as OsName] ?? linux;

export const system: Platform = platformFor(process.platform);

/** This person's places on this system (another module — `mcpx connect`'s client configs — reads them). */
export const places = (env: NodeJS.ProcessEnv = process.env): Places => system.places(env, homedir());
