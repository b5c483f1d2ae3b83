// The process around an mcpx_exec script (src/gateway/exec/sandbox.ts; docs/exec.md "What the sandbox
// stops, and what it does not"): code run under the very flags the child gets, outside the vm context —
// what an escape from the context would meet. Writes, child processes, worker threads, native addons
// and code from strings are refused; the network is not (Node 20's permission model has no network
// scope), which is why the script's context has no way to reach a socket at all.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { childBundle, sandboxFlags } from '../../src/gateway/exec/sandbox';
import { repoRoot } from '../harness/gateway';

const PROBE = `
const out = {};
const attempt = (k, f) => { try { f(); out[k] = 'allowed'; } catch (e) { out[k] = e.code || e.name; } };
attempt('write', () => require('fs').writeFileSync(process.env.TARGET, 'x'));
attempt('read', () => require('fs').readFileSync('/etc/hostname'));
attempt('spawn', () => require('child_process').spawnSync('true'));
attempt('worker', () => new (require('worker_threads').Worker)('1', { eval: true }));
attempt('addon', () => process.dlopen({ exports: {} }, '/nonexistent.node'));
attempt('eval', () => Function('return 1')());
const s = require('net').connect(Number(process.env.PORT), '127.0.0.1');
s.on('connect', () => { out.socket = 'connected'; s.destroy(); console.log(JSON.stringify(out)); });
s.on('error', (e) => { out.socket = e.code; console.log(JSON.stringify(out)); });
`;

test('under the child flags: no writes, reads, processes, workers, addons or eval; the network is reachable', async () => {
  const server = createServer((c) => c.end());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const port = (server.address() as { port: number }).port;
    const bundle = childBundle(repoRoot());
    const target = `${repoRoot()}/build/exec-sandbox-write-probe`;
    const r = spawnSync(process.execPath, [...sandboxFlags(bundle, 64), '-e', PROBE], {
      env: { PORT: String(port), TARGET: target },
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), {
      write: 'ERR_ACCESS_DENIED',
      read: 'ERR_ACCESS_DENIED',
      spawn: 'ERR_ACCESS_DENIED',
      worker: 'ERR_ACCESS_DENIED',
      addon: 'ERR_DLOPEN_DISABLED',
      eval: 'EvalError',
      // Honest: the process-level model does not stop this; the script's context has no socket to open.
      socket: 'connected',
    });
  } finally {
    server.close();
  }
});
