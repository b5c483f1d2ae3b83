// The code-server run's processes (run.mjs): where the host is, code-server started in its own process
// group, and everything a run started found by a marker in its environment and stopped.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const HOST_DIR = path.resolve(
  process.env.MCPX_VSCODE_HOST || path.join(os.homedir(), '.cache', 'mcpx-vscode-host'),
);
export const NODE24 = path.join(HOST_DIR, 'node', 'bin', 'node');
export const CODE_SERVER = path.join(HOST_DIR, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
export const MARKER_VAR = 'MCPX_VSCODE_HOST_RUN';

/** codeAutomationLog gets console arguments as a JSON array string: print them as console would. */
export function formatLog(message) {
  let args = message;
  if (typeof message === 'string' && message.startsWith('[')) {
    try {
      args = JSON.parse(message);
    } catch {
      return message;
    }
  }
  if (!Array.isArray(args)) return typeof args === 'string' ? args : JSON.stringify(args);
  return args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
}

export function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids (other than ours) whose environment carries MARKER_VAR=runDir: everything a run started,
 *  including processes that left the process group (node-pty terminals call setsid). */
export function markedPids(runDir) {
  const needle = `${MARKER_VAR}=${runDir}\0`;
  const pids = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || +d === process.pid) continue;
    try {
      if ((fs.readFileSync(`/proc/${d}/environ`, 'latin1') + '\0').includes(needle)) pids.push(+d);
    } catch {
      /* gone or not ours */
    }
  }
  return pids;
}

export function killAll(pgid, runDir, signal) {
  if (pgid)
    try {
      process.kill(-pgid, signal);
    } catch {
      /* already gone */
    }
  for (const pid of markedPids(runDir))
    try {
      process.kill(pid, signal);
    } catch {
      /* gone */
    }
}

/** Spawn Node 24 on code-server's entry in its own process group; lines go to onLine. */
export function spawnServer(args, env, onLine) {
  const child = spawn(NODE24, [CODE_SERVER, ...args], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [child.stdout, child.stderr]) {
    let buf = '';
    stream.setEncoding('utf8');
    stream.on('data', (s) => {
      buf += s;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        onLine(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
    });
    stream.on('end', () => {
      if (buf) onLine(buf);
    });
  }
  child.exited = new Promise((resolve) => child.on('exit', (code, sig) => resolve(code ?? sig)));
  return child;
}
