// Nothing lost across a change (docs/protocol.md "Tasks across a restart", docs/gateway.md "Changing the
// configuration"): the window's gateway stopped and started as a window reload does (this suite runs in
// the extension host, so the reload is the host's stop and start, on the same workspace) reads its own
// task journal back; and an agent on the stdio shim keeps its session and its running task while Add
// Server… adds a pass-through server.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import * as vscode from 'vscode';
import {
  drive,
  fixtureCommandLine,
  type Json,
  legacyClient,
  pageTest,
  shotTaken,
  type TaskRow,
  test,
  textOf,
  WORKSPACE,
} from './harness';
import { until } from '../harness/wait';

const RESTARTED = /the gateway restarted while this call was running/;
const rowsOf = async (x: { tasks: vscode.TreeDataProvider<TaskRow> }) =>
  ((await x.tasks.getChildren()) ?? []) as TaskRow[];

export const windowReload =
  test('Across a window reload: ended tasks answered to their owner by the same ids, running ones failed saying so, both in the Tasks view', async (x) => {
    const ME = { 'dev.mcpx/session': 'reload-agent-6e1d0b8c2a9f4d37b5e0' };
    const client = await legacyClient(x.endpoint()!, 'reload-agent');
    const start = async (ms: number) =>
      String(
        (
          (
            await client('tools/call', {
              name: 'mcpx_call',
              arguments: { server: 'up', tool: 'slow', arguments: { ms } },
              task: {},
              _meta: ME,
            })
          ).task as Json
        ).taskId,
      );
    const done = await start(10);
    const result = await client('tasks/result', { taskId: done, _meta: ME });
    assert.match(textOf(result), /slept 10ms/);
    const running = await start(120_000);
    await until(async () => (await rowsOf(x)).find((r) => r.id === running && r.state === 'working'), {
      what: 'the running task in the Tasks view',
      every: 100,
    });

    const host = x.host as unknown as { stop(): Promise<void>; start(): Promise<string> };
    await host.stop();
    await host.start();

    const after = await legacyClient(x.endpoint()!, 'reload-agent');
    const got = await after('tasks/get', { taskId: done, _meta: ME });
    assert.equal(got.taskId, done);
    assert.equal(got.status, 'completed');
    assert.deepEqual(await after('tasks/result', { taskId: done, _meta: ME }), result);
    const lost = await after('tasks/get', { taskId: running, _meta: ME });
    assert.equal(lost.status, 'failed');
    assert.match(String(lost.statusMessage), RESTARTED);
    await assert.rejects(after('tasks/get', { taskId: done }), /-32602/, 'another identity: as for an unknown id');
    const rows = await rowsOf(x);
    const ended = rows.find((r) => r.id === done);
    assert.equal(ended?.state, 'completed');
    assert.match(ended.description, /^completed · reload-agent · ended \d+ s ago$/);
    const failed = rows.find((r) => r.id === running);
    assert.equal(failed?.state, 'failed');
    assert.equal(failed.contextValue, 'mcpx.task.failed');
  });

/** `mcpx serve --transport stdio` in the workspace folder (auto: this window's gateway), as an agent
 *  starts it; every frame it prints kept. */
export function shimAgent() {
  const cli = join(__dirname, '..', '..', 'dist', 'cli.js');
  const child = spawn(process.execPath, [cli, 'serve', '--transport', 'stdio'], {
    cwd: WORKSPACE(),
    env: process.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const frames: Json[] = [];
  const waiting = new Map<number, (f: Json) => void>();
  createInterface({ input: child.stdout }).on('line', (l) => {
    const f = JSON.parse(l) as Json;
    frames.push(f);
    if (typeof f.id === 'number' && !('method' in f)) waiting.get(f.id)?.(f);
  });
  let id = 0;
  const rpc = (method: string, params: Json = {}) =>
    new Promise<Json>((resolve) => {
      const n = ++id;
      waiting.set(n, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: n, method, params })}\n`);
    });
  return {
    frames,
    rpc,
    stderr: () => stderr,
    notify: (method: string) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`),
    end: async () => {
      child.stdin.end();
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
    },
  };
}

export const shimAcrossAddServer = pageTest(
  'Across a change: a stdio agent through the shim keeps its session while Add Server… adds a pass-through server (told tools/list_changed, its tools listed without initializing again); its running task stays in the Tasks view and completes',
  async (x) => {
    const cfg = () => vscode.workspace.getConfiguration('mcpx');
    const file = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, '.vscode', 'mcp.json');
    const original = await vscode.workspace.fs.readFile(file);
    const life = x.life as unknown as { run?: object };
    // The server to be added is pass-through: its tools then join the agent's own list. (A listener
    // setting: the gateway restarts for it, before the agent connects.)
    const before = life.run;
    await cfg().update('mcp.passthrough', ['later'], vscode.ConfigurationTarget.Global);
    await until(() => (life.run && life.run !== before ? true : undefined), {
      what: 'the gateway restarted in pass-through',
      every: 100,
    });
    const agent = shimAgent();
    try {
      const init = await agent.rpc('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'shim-agent', version: '1.0.0' },
      });
      assert.equal((init.result as Json).protocolVersion, '2025-11-25', `${JSON.stringify(init)} ${agent.stderr()}`);
      agent.notify('notifications/initialized');
      const names = async () =>
        (((await agent.rpc('tools/list')).result as Json).tools as Json[]).map((t) => String(t.name));
      assert.ok(!(await names()).includes('echo'), 'no pass-through server yet');
      const made = await agent.rpc('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'slow', arguments: { ms: 25_000, steps: 25 } },
        task: {},
      });
      const taskId = String(((made.result as Json).task as Json).taskId);
      const row = await until(async () => (await rowsOf(x)).find((r) => r.id === taskId && r.state === 'working'), {
        what: 'the shim agent’s task working in the Tasks view',
        every: 100,
      });
      assert.match(row.description, /^working · shim-agent · /);
      const runBefore = life.run;

      const adding = vscode.commands.executeCommand<string[]>('mcpx.addServer');
      drive(
        { pick: 'Command (stdio)' },
        { fill: fixtureCommandLine('later') },
        { fill: 'later' },
        { pick: 'No credential' },
        { pick: 'Without a sandbox' },
        { pick: 'This workspace' },
      );
      await adding;
      await until(() => x.host.gateway?.servers().find((s) => s.name === 'later' && s.state === 'running'), {
        what: 'the added server running',
        every: 100,
        timeout: 40_000,
      });
      await until(() => agent.frames.some((f) => f.method === 'notifications/tools/list_changed'), {
        what: 'the agent told tools/list_changed',
        every: 100,
      });
      assert.equal(life.run, runBefore, 'applied in place: the same run, listener and sessions');
      assert.ok((await names()).includes('echo'), 'the added server’s tools, listed on the same session');
      assert.equal(
        agent.frames.filter((f) => (f.result as Json | undefined)?.protocolVersion !== undefined).length,
        1,
        'initialized once',
      );

      // The Tasks view after the change, as the person sees it (wide enough to read): the agent's task
      // still running, beside the tasks the window reload above restored.
      await vscode.commands.executeCommand('notifications.hideList');
      await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.commands.executeCommand('mcpx.tasks.focus');
      for (let i = 0; i < 3; i++) await vscode.commands.executeCommand('workbench.action.increaseViewSize');
      const t0 = Date.now();
      drive(
        { row: ['later', 'running'] },
        { row: ['tools/call mcpx_call up/slow', 'working', 'shim-agent'] },
        { row: ['tools/call mcpx_call up/slow', 'failed', 'reload-agent'] },
        { shot: 'tasks-after-add-server' },
      );
      await shotTaken('tasks-after-add-server', t0);
      for (let i = 0; i < 3; i++) await vscode.commands.executeCommand('workbench.action.decreaseViewSize');
      assert.equal(x.host.tasks?.find(taskId)?.status, 'working');

      // The task is the session's: reached on the same session after the change, its result collected.
      const result = (await agent.rpc('tasks/result', { taskId })).result as Json;
      assert.match(textOf(result), /slept 25000ms/);
      assert.equal(((await agent.rpc('tasks/get', { taskId })).result as Json).status, 'completed');
      await until(async () => (await rowsOf(x)).find((r) => r.id === taskId && r.state === 'completed'), {
        what: 'the task completed in the Tasks view',
        every: 100,
      });
    } finally {
      await agent.end();
      await vscode.workspace.fs.writeFile(file, original);
      await until(() => (x.host.gateway?.servers().some((s) => s.name === 'later') ? undefined : true), {
        what: 'the added server gone',
        every: 100,
      });
      const run = life.run;
      await cfg().update('mcp.passthrough', undefined, vscode.ConfigurationTarget.Global);
      await until(() => (life.run && life.run !== run ? true : undefined), {
        what: 'the gateway restarted out of pass-through',
        every: 100,
      });
    }
  },
);
