// Each editor window's own task journal (src/vscode/host/editorJournal.ts; docs/protocol.md "Tasks across
// a restart"), in plain Node over real gateways and real processes: the file is named by the workspace
// (the same after a reload, another for another folder, never the daemon's); a live window of the same
// workspace holding it keeps a second one from writing it, a dead one's lock is taken over; and a
// window's gateway stopped and started again — as a window reload does — answers the ended task to its
// owner by the same id, holds the running one failed with the restart message, and lists both where the
// Tasks view reads them.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type Listening, listen } from '../../src/app/app';
import { gatewayRoutes } from '../../src/app/routes';
import { parseConfig } from '../../src/config/file';
import { Settings } from '../../src/config/settings';
import { Gateway } from '../../src/gateway/gateway';
import { claimEditorJournal, editorJournalName } from '../../src/vscode/host/editorJournal';
import { fixtureCommand, killAll } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';

after(() => killAll());

const dir = mkdtempSync(join(tmpdir(), 'mcpx-editor-journal-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const RESTARTED = /the gateway restarted while this call was running/;
const ALICE = { 'dev.mcpx/session': 'alice-3c8e1f0a9b7d42e6a5c1' };
const BOB = { 'dev.mcpx/session': 'bob-7a2d9e4c1f0b48d3b6e5' };

test('the file is named by the workspace: the same after a reload, another for another folder, never the daemon’s', () => {
  const a = editorJournalName('/home/me/project');
  assert.equal(editorJournalName('/home/me/project'), a);
  assert.notEqual(editorJournalName('/home/me/other'), a);
  assert.notEqual(editorJournalName('/home/me/project,/home/me/other'), a);
  assert.match(a, /^editor-tasks[/\\][0-9a-f]{32}\.jsonl$/);
});

/** Another window's extension host holding `key`'s journal: a live process running `script`, its id in
 *  the lock. */
function heldBy(key: string, script: string) {
  const lock = join(dir, `${editorJournalName(key)}.lock`);
  mkdirSync(join(dir, 'editor-tasks'), { recursive: true });
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  const exited = new Promise((r) => child.once('exit', r));
  writeFileSync(lock, String(child.pid));
  return { lock, child, exited };
}

test('one writer per file: a live window of the same workspace keeps it; a dead one’s lock is taken over', async () => {
  const key = '/work/same-folder';
  const { lock, child: other, exited } = heldBy(key, 'setInterval(() => {}, 1000)');
  try {
    const lines: string[] = [];
    assert.equal(await claimEditorJournal(dir, key, (l) => lines.push(l), 0), undefined);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, new RegExp(`another window of the same workspace \\(process ${other.pid}\\)`));
    // Another folder is not held by it.
    const elsewhere = await claimEditorJournal(dir, '/work/other-folder', () => undefined, 0);
    assert.ok(elsewhere);
    elsewhere.lock.release();
  } finally {
    other.kill('SIGKILL');
    await exited;
  }
  // Its process is gone (a crash, a reload): taken over.
  const mine = await claimEditorJournal(dir, key, () => undefined, 0);
  assert.ok(mine, 'a dead window’s lock is stale');
  if (process.platform !== 'win32') assert.equal(statSync(lock).mode & 0o777, 0o600);
  // A second claim in the same process (a second gateway that forgot the first) is refused too.
  assert.equal(await claimEditorJournal(dir, key, () => undefined, 0), undefined);
  mine.lock.release();
  assert.ok(!existsSync(lock), 'released: the file is gone');
  const again = await claimEditorJournal(dir, key, () => undefined, 0);
  assert.ok(again);
  again.lock.release();
});

test('a reload whose old extension host is still exiting: the start waits for it to let go, then claims the file', async () => {
  const key = '/work/slow-exit';
  // The old host: alive when the claim begins, gone a moment later.
  const { exited } = heldBy(key, 'setTimeout(() => {}, 300)');
  const lines: string[] = [];
  const claimed = await claimEditorJournal(dir, key, (l) => lines.push(l), 30_000);
  await exited;
  assert.ok(claimed, lines.join('\n'));
  assert.deepEqual(lines, []);
  claimed.lock.release();
});

/** A window's gateway as the host starts it: its journal claimed, its listener reading it back. */
async function startWindow(key: string): Promise<{ l: Listening; close(): Promise<void> }> {
  const config = parseConfig({ servers: { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) } }, 'test', {
    env: process.env,
  });
  const settings = new Settings([{ source: 'flag', values: { 'pool.probeTimeout': '1s', 'pool.startTimeout': '5s' } }]);
  const g = new Gateway(config, settings, { stateDir: dir });
  const journal = await claimEditorJournal(dir, key, (l) => assert.fail(l), 0);
  assert.ok(journal);
  const l = await listen({
    provider: g,
    settings,
    port: 0,
    address: '127.0.0.1',
    routes: gatewayRoutes(g),
    journalDir: dir,
    journalFile: journal.name,
  });
  return {
    l,
    close: async () => {
      await l.close();
      journal.lock.release();
      await g.close();
    },
  };
}

test('a window reload: the ended task answered to its owner by the same id, the running one failed, both listed', async () => {
  const key = '/work/reloaded';
  let w = await startWindow(key);
  let other: Awaited<ReturnType<typeof startWindow>> | undefined;
  try {
    const c = new HttpClient(w.l.endpoint, '2025-11-25');
    await c.initialize();
    const start = async (ms: number) => {
      const r = await c.request(
        'tools/call',
        { name: 'mcpx_call', arguments: { server: 'up', tool: 'slow', arguments: { ms } }, task: {} },
        { meta: ALICE },
      );
      return String(((r.result as Json).task as Json).taskId);
    };
    const done = await start(10);
    const doneResult = (await c.request('tasks/result', { taskId: done }, { meta: ALICE })).result as Json;
    assert.match(JSON.stringify(doneResult.content), /slept 10ms/);
    const running = await start(120_000);
    assert.equal(w.l.tasks.find(running)?.status, 'working');
    // Another workspace's window, open at the same time, writes its own file.
    other = await startWindow('/work/elsewhere');

    await w.close(); // the extension host stops…
    w = await startWindow(key); // …and the reloaded window starts
    assert.ok(!existsSync(join(dir, 'tasks.jsonl')), 'the daemon’s journal is not the editor’s');
    const after = new HttpClient(w.l.endpoint, '2025-11-25');
    await after.initialize();
    const got = (await after.request('tasks/get', { taskId: done }, { meta: ALICE })).result as Json;
    assert.equal(got.taskId, done);
    assert.equal(got.status, 'completed');
    assert.deepEqual((await after.request('tasks/result', { taskId: done }, { meta: ALICE })).result, doneResult);
    const lost = (await after.request('tasks/get', { taskId: running }, { meta: ALICE })).result as Json;
    assert.equal(lost.status, 'failed');
    assert.match(String(lost.statusMessage), RESTARTED);
    assert.equal((await after.request('tasks/get', { taskId: done }, { meta: BOB })).error?.code, -32602);
    // Where the Tasks view reads them.
    assert.deepEqual(
      w.l.tasks
        .list(undefined)
        .map((t) => [t.id, t.status])
        .sort(),
      [
        [done, 'completed'],
        [running, 'failed'],
      ].sort(),
    );
    assert.equal(other.l.tasks.find(done), undefined, 'another workspace’s window never sees them');
  } finally {
    await w.close();
    await other?.close();
  }
});
