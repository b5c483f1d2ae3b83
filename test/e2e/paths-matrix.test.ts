// Every path into mcpx × every revision × a client that pipelines and one that waits (the ssh path is in
// paths-matrix-ssh.test.ts): initialize (legacy), every list method, a tool call, a prompt get and a
// resource read, each answered in the client's own revision (every frame validated strictly by the
// harness clients; titles and annotations checked per revision), and every call run as the client's own
// identity — the same upstream instance first, last and after the exchange, another one for every other
// client — never as a sessionless request. One daemon serves the HTTP and shim cells; cells run a few
// at a time.
import { after, before, describe, test } from 'node:test';
import {
  type Daemon,
  closeAll,
  LEGACY,
  MODERN,
  type Mode,
  type Path,
  httpPath,
  runCell,
  shimPath,
  standalonePath,
  startDaemon,
} from '../harness/paths';

let daemon: Daemon;
before(async () => {
  daemon = await startDaemon();
});
after(async () => {
  await closeAll();
  await daemon?.stop();
});

const PATHS: Path[] = [
  httpPath(() => daemon.endpoint),
  shimPath(
    'the shim (--connect auto, the running daemon)',
    () => 'auto',
    () => daemon.env,
  ),
  shimPath(
    'the shim (--connect URL)',
    () => daemon.endpoint,
    () => daemon.env,
  ),
  standalonePath(
    () => daemon.config,
    () => daemon.env,
  ),
];

const seen = new Map<string, string>();

describe('every path × every revision × pipelining or waiting', { concurrency: 3 }, () => {
  for (const path of PATHS)
    for (const rev of [...LEGACY, MODERN])
      for (const mode of ['pipelining', 'waiting'] as Mode[]) {
        const cell = `${path.name} · ${rev} · ${mode}`;
        test(cell, { timeout: 30_000 }, () => runCell(path, rev, mode, cell, seen));
      }
});
