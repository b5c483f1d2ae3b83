// The stdio shim: a client started in a workspace folder reaches this window's gateway, across a restart.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { drive, type Json, pageTest, recorded, textOf, WORKSPACE } from './harness';

export const shimClient = pageTest(
  'a stdio client started in a workspace folder reaches this window through the shim: its question answered in the QuickPick; the window restarts and its next call succeeds',
  async (x) => {
    // `mcpx serve --transport stdio` with no --connect: auto finds this window by the folder it runs in.
    const cli = join(__dirname, '..', '..', 'dist', 'cli.js');
    const child = spawn(process.execPath, [cli, 'serve', '--transport', 'stdio'], {
      cwd: WORKSPACE(),
      env: process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const waiting = new Map<number, (f: Json) => void>();
    createInterface({ input: child.stdout }).on('line', (l) => {
      const f = JSON.parse(l) as Json;
      if (typeof f.id === 'number') waiting.get(f.id)?.(f);
    });
    let id = 0;
    const rpc = (method: string, params: Json = {}) =>
      new Promise<Json>((resolve) => {
        const n = ++id;
        waiting.set(n, resolve);
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: n, method, params })}\n`);
      });
    try {
      const init = await rpc('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'shim-agent', version: '1.0.0' },
      });
      assert.equal((init.result as Json).protocolVersion, '2025-06-18');
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      assert.match(
        stderr,
        new RegExp(
          `serving stdio through the editor window for ${WORKSPACE().replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`,
        ),
      );
      // The client declared no elicitation: the question goes to the person, in this window's QuickPick.
      const asked = rpc('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'elicit', arguments: { text: 'Through the shim?' } },
      });
      drive(
        { title: 'up (via mcpx) asks: Through the shim? — for shim-agent' },
        { fill: 'Grace Hopper' },
        { pick: 'Accept' },
      );
      const answered = (await asked).result as Json;
      assert.deepEqual(JSON.parse(textOf(answered)), { action: 'accept', content: { answer: 'Grace Hopper' } });
      assert.ok(
        recorded().some(
          (f) => 'result' in f && ((f.result as Json).content as Json | undefined)?.answer === 'Grace Hopper',
        ),
        'the upstream received the answer',
      );
      // The window's gateway restarts (as for a change of port): the same client's next call succeeds.
      // The restart is a new run: nothing of the one before is left registered (src/vscode/lifetimes.ts).
      const held = x.life.counts();
      const host = x.host as unknown as { stop(): Promise<void>; start(): Promise<string> };
      await host.stop();
      await host.start();
      assert.deepEqual(x.life.counts(), held, 'as many disposables after the restart as before');
      const after = (
        await rpc('tools/call', {
          name: 'mcpx_call',
          arguments: { server: 'up', tool: 'echo', arguments: { text: 'after the restart' } },
        })
      ).result as Json;
      assert.equal(textOf(after), 'after the restart');
    } finally {
      child.stdin.end();
      await new Promise((r) => child.once('exit', r));
    }
  },
);
