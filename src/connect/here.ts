// ─── MERGE POINT (platform module, issue 39) ────────────────────────────────────────────────────────────
// The one place `mcpx connect` and the editor's Connect Agents… learn which OS they run on and where its
// folders are. When the platform module lands, this function asks it instead; nothing else in
// src/connect/ looks at the running platform.
import { homedir, platform } from 'node:os';
import type { Os, Places } from './places';

export function herePlaces(env: NodeJS.ProcessEnv = process.env): Places {
  const p = platform();
  const os: Os = p === 'win32' || p === 'darwin' ? p : 'linux';
  return { os, home: homedir(), env, appData: env.APPDATA || undefined };
}
