// src/kit/journal.ts: the append-only journal of keyed records under tasks that outlive a restart — append
// and read back, compaction (at open and past its bound), a torn last line, an unreadable file moved
// aside, expiry at open, owner-only modes. Real files in a temp directory.
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Journal, type JournalRecord } from '../src/kit/journal';

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
