// The ssh path of the paths matrix (paths-matrix.test.ts): `mcpx serve --transport stdio --connect
// ssh://…` through a real sshd on loopback, the far side a shim onto a headless daemon — every revision ×
// a client that pipelines and one that waits, with the same checks as every other path. Skipped where
// openssh cannot be had (never under CI).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Daemon, closeAll, LEGACY, MODERN, type Mode, runCell, sshPath, startDaemon } from '../harness/paths';
import { type Sshd, sshSkip, startSshd } from '../harness/sshd';

const skip = sshSkip();
let daemon: Daemon;
let sshd: Sshd;
before(async () => {
  if (skip) return;
  daemon = await startDaemon();
  const state = join(daemon.dir, 'far');
  mkdirSync(state);
  sshd = await startSshd(daemon.endpoint, state);
});
after(async () => {
  await closeAll();
  await sshd?.stop();
  await daemon?.stop();
});

const seen = new Map<string, string>();
const path = sshPath(() => sshd.shimCommand());

describe('the shim over ssh × every revision × pipelining or waiting', { skip, concurrency: 3 }, () => {
  for (const rev of [...LEGACY, MODERN])
    for (const mode of ['pipelining', 'waiting'] as Mode[]) {
      const cell = `${path.name} · ${rev} · ${mode}`;
      test(cell, { timeout: 30_000 }, () => runCell(path, rev, mode, cell, seen));
    }
});
