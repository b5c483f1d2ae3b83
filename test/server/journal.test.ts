// src/kit/journal.ts and src/server/taskJournal.ts: the append-only journal of keyed records under tasks that outlive a restart — append
// and read back, compaction (at open and past its bound), a torn last line, an unreadable file moved
// aside, expiry at open, owner-only modes; and what a server reads back from it at start (ended tasks kept, running ones failed,
// expired and over-bound ones dropped, background calls). Real files in a temp directory.
import assert from 'node:assert/strict';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Journal, type JournalRecord } from '../../src/kit/journal';
import { BackgroundCalls } from '../../src/server/mrtr';
import { TaskJournal } from '../../src/server/taskJournal';
import { Tasks } from '../../src/server/tasks';

const root = mkdtempSync(join(tmpdir(), 'mcpx-journal-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(root, `d${++n}`, 'tasks.jsonl');
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

describe('Journal', () => {
  test('records merge by key and read back in order; a dropped key is gone; owner-only directory and file', () => {
    const file = fresh();
    const j = new Journal(file);
    j.put('a', { status: 'working', identity: 'client:x' });
    j.put('b', { status: 'working' });
    j.put('a', { status: 'completed', result: { content: [] } });
    j.drop('b');
    j.drop('b'); // a key already gone writes nothing
    assert.equal(lines(file).length, 4);
    assert.deepEqual(new Journal(file).records(), [
      { id: 'a', status: 'completed', identity: 'client:x', result: { content: [] } },
    ]);
    if (process.platform !== 'win32') {
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(statSync(join(file, '..')).mode & 0o777, 0o700);
    }
  });

  test('compacted at open: only the live records, one line each', () => {
    const file = fresh();
    const j = new Journal(file);
    for (let i = 0; i < 5; i++) j.put(`k${i}`, { v: i });
    for (let i = 0; i < 5; i++) j.put(`k${i}`, { w: i });
    j.drop('k0');
    assert.equal(lines(file).length, 11);
    const again = new Journal(file);
    assert.equal(lines(file).length, 4);
    assert.deepEqual(
      again.records().map((r) => [r.id, r.v, r.w]),
      [
        ['k1', 1, 1],
        ['k2', 2, 2],
        ['k3', 3, 3],
        ['k4', 4, 4],
      ],
    );
  });

  test('bounded: past twice the live records plus the slack, the file is rewritten with the live ones', () => {
    const file = fresh();
    const j = new Journal(file, { slack: 4 });
    for (let i = 0; i < 100; i++) {
      j.put(`k${i}`, { v: i });
      j.drop(`k${i}`);
      // Never more than 2 × live (0 or 1) + slack + the line that tipped it.
      assert.ok(lines(file).length <= 2 * 1 + 4 + 1, `at ${i}: ${lines(file).length} lines`);
    }
    j.put('last', { v: 1 });
    assert.deepEqual(new Journal(file).records(), [{ id: 'last', v: 1 }]);
  });

  test('a torn last line (a crash mid-write) is skipped with a log line; the rest loads', () => {
    const file = fresh();
    const j = new Journal(file);
    j.put('a', { status: 'completed' });
    j.put('b', { status: 'working' });
    appendFileSync(file, '{"id":"a","status":"fai');
    const log: string[] = [];
    const again = new Journal(file, { log: (l) => log.push(l) });
    assert.deepEqual(again.records(), [
      { id: 'a', status: 'completed' },
      { id: 'b', status: 'working' },
    ]);
    assert.equal(log.length, 1);
    assert.match(log[0]!, /ends in a torn record \(a crash mid-write\); skipped/);
    // Compacted: the torn bytes are gone, the next line starts clean.
    again.put('c', { v: 1 });
    assert.deepEqual(
      new Journal(file).records().map((r) => r.id),
      ['a', 'b', 'c'],
    );
  });

  test('an unreadable journal (a bad line inside, not at the end) is moved aside with a log line; it starts empty', () => {
    const file = fresh();
    new Journal(file).put('a', { v: 1 });
    appendFileSync(file, 'not json\n{"id":"b"}\n');
    const log: string[] = [];
    const j = new Journal(file, { log: (l) => log.push(l) });
    assert.deepEqual(j.records(), []);
    assert.match(
      log.join('\n'),
      /is unreadable \(line 2 is not a record\); moved aside to .*tasks\.jsonl\.unreadable-\d+, starting empty/,
    );
    const dir = join(file, '..');
    const aside = readdirSync(dir).filter((f) => f.startsWith('tasks.jsonl.unreadable-'));
    assert.equal(aside.length, 1);
    assert.match(readFileSync(join(dir, aside[0]!), 'utf8'), /not json/);
    j.put('c', { v: 2 });
    assert.deepEqual(new Journal(file).records(), [{ id: 'c', v: 2 }]);
  });

  test('a line that is JSON but no record (no string id) also makes the journal unreadable', () => {
    const file = fresh();
    new Journal(file).put('a', { v: 1 });
    appendFileSync(file, '[1,2]\n');
    const log: string[] = [];
    assert.deepEqual(new Journal(file, { log: (l) => log.push(l) }).records(), []);
    assert.match(log.join('\n'), /line 2 is not a record/);
  });

  test('expired records are dropped at open, and from the file', () => {
    const file = fresh();
    const j = new Journal(file);
    j.put('old', { endedAt: 1 });
    j.put('new', { endedAt: Date.now() });
    const expired = (r: JournalRecord) => typeof r.endedAt === 'number' && r.endedAt < Date.now() - 60_000;
    assert.deepEqual(
      new Journal(file, { expired }).records().map((r) => r.id),
      ['new'],
    );
    assert.deepEqual(
      lines(file).map((l) => JSON.parse(l).id),
      ['new'],
    );
  });

  test('a closed journal writes nothing more', () => {
    const file = fresh();
    const j = new Journal(file);
    j.put('a', { status: 'working' });
    j.close();
    j.put('a', { status: 'cancelled' });
    j.drop('a');
    assert.deepEqual(new Journal(file).records(), [{ id: 'a', status: 'working' }]);
  });

  test('a journal that is a directory (cannot be read) is moved aside, never a failure to start', () => {
    const file = fresh();
    new Journal(file).put('a', { v: 1 });
    rmSync(file);
    // A directory where the file should be: reading it fails with EISDIR.
    mkdirSync(file);
    const log: string[] = [];
    const j = new Journal(file, { log: (l) => log.push(l) });
    assert.deepEqual(j.records(), []);
    assert.match(log.join('\n'), /is unreadable \(cannot read it/);
    j.put('b', { v: 1 });
    assert.deepEqual(new Journal(file).records(), [{ id: 'b', v: 1 }]);
  });
});

describe('TaskJournal: what a server reads back at start', () => {
  const limits = (held: number) => () => ({ perIdentity: 10, total: 10, held });
  const open = (dir: string, held = 10) => {
    const tasks = new Tasks(
      () => 60_000,
      () => 100,
      limits(held),
    );
    const background = new BackgroundCalls(
      () => 60_000,
      () => ({ perIdentity: 10, total: 10 }),
    );
    const log: string[] = [];
    const j = new TaskJournal(
      dir,
      () => 60_000,
      (l) => log.push(l),
    );
    j.attach(tasks, background);
    return { tasks, background, j, log, close: () => (j.close(), tasks.close(), background.close()) };
  };
  const write = (dir: string, records: object[]) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'tasks.jsonl'), records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  };
  const base = { kind: 'task', method: 'tools/call', label: 'tools/call x', era: 'modern', identity: 'client:a' };

  test('ended tasks keep id, owner and outcome; a running one is failed with the restart message; expired ones are dropped', () => {
    const dir = join(root, `t${++n}`);
    const now = Date.now();
    write(dir, [
      {
        id: 'done',
        ...base,
        createdAt: now - 1000,
        updatedAt: now - 500,
        status: 'completed',
        result: { content: [] },
      },
      { id: 'old', ...base, createdAt: 1, updatedAt: now - 120_000, status: 'completed', result: { content: [] } },
      { id: 'run', ...base, createdAt: now - 1000, updatedAt: now - 900, status: 'working' },
      {
        id: 'err',
        ...base,
        era: 'legacy',
        createdAt: now,
        updatedAt: now,
        status: 'failed',
        error: { code: -32603, message: 'boom' },
      },
    ]);
    const s = open(dir);
    try {
      assert.deepEqual(
        s.tasks.list(undefined).map((t) => [t.id, t.status]),
        [
          ['done', 'completed'],
          ['run', 'failed'],
          ['err', 'failed'],
        ],
      );
      assert.deepEqual(s.tasks.get('done', 'client:a').outcome(), { content: [] });
      assert.throws(() => s.tasks.get('done', 'client:b'), /no task "done" \(unknown, expired, or not yours\)/);
      const run = s.tasks.get('run', 'client:a');
      assert.match(String(run.statusMessage), /^the gateway restarted while this call was running/);
      assert.throws(() => run.outcome(), /the gateway restarted/);
      assert.throws(() => s.tasks.get('err', 'client:a').outcome(), /^ProtocolError: boom$/);
      // Ended tasks no longer count as running: the identity may start ten more.
      assert.equal(s.tasks.size, 3);
    } finally {
      s.close();
    }
    // The restart's verdict was written: read again, the running one is still failed, not working.
    const again = open(dir);
    try {
      assert.equal(again.tasks.get('run', 'client:a').status, 'failed');
      assert.ok(!readFileSync(join(dir, 'tasks.jsonl'), 'utf8').includes('"old"'));
    } finally {
      again.close();
    }
  });

  test('bounded by limits.tasks at start: what does not fit is dropped (from the file too), nothing evicted', () => {
    const dir = join(root, `t${++n}`);
    const now = Date.now();
    write(dir, [
      { id: 'one', ...base, createdAt: now, updatedAt: now, status: 'completed', result: { content: [] } },
      { id: 'two', ...base, createdAt: now, updatedAt: now, status: 'completed', result: { content: [] } },
    ]);
    const s = open(dir, 1);
    s.close();
    assert.deepEqual(
      s.tasks.list(undefined).map((t) => t.id),
      [],
    );
    const again = open(dir, 10);
    try {
      assert.deepEqual(
        again.tasks.list(undefined).map((t) => t.id),
        ['one'],
      );
    } finally {
      again.close();
    }
  });

  test('a background call that was asking comes back failed, with its nonce; one that finished with its result', () => {
    const dir = join(root, `t${++n}`);
    const now = Date.now();
    write(dir, [
      {
        id: 'asking',
        kind: 'call',
        method: 'tools/call',
        identity: 'client:a',
        rounds: 1,
        nonce: 'n1',
        updatedAt: now,
      },
      {
        id: 'ended',
        kind: 'call',
        method: 'tools/call',
        identity: 'client:a',
        rounds: 2,
        nonce: 'n2',
        updatedAt: now,
        finishedAt: now,
        result: { content: [{ type: 'text', text: 'ok' }] },
      },
    ]);
    const s = open(dir);
    try {
      const asking = s.background.get('asking')!;
      assert.equal(asking.nonce, 'n1');
      assert.match(String((asking.finished!.error as Error).message), /the gateway restarted/);
      assert.deepEqual(s.background.get('ended')!.finished?.result, { content: [{ type: 'text', text: 'ok' }] });
      // Collected (the retry's round deletes it): gone from the journal.
      s.background.delete('ended');
    } finally {
      s.close();
    }
    const again = open(dir);
    try {
      assert.equal(again.background.get('ended'), undefined);
      assert.ok(again.background.get('asking'));
    } finally {
      again.close();
    }
  });
});
