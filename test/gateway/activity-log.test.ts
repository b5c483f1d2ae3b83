// The activity log behind the sink (src/gateway/activity/): records appended straight to an ActivityLog in
// plain Node — no network — and what lands on disk read back: owner-only files, arguments redacted and
// cut under `full`, rotation within activity.maxBytes over 100,000 records, retention, a torn last line,
// a disk that refuses, the bounded queue and the in-memory feed.
import assert from 'node:assert/strict';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parseConfig } from '../../src/config/file';
import type { ServerDef } from '../../src/config/servers';
import { Settings } from '../../src/config/settings';
import { readActivity } from '../../src/gateway/activity/files';
import { ActivityLog } from '../../src/gateway/activity/log';
import type { JsonObject } from '../../src/protocol/jsonrpc';
import { record } from '../harness/activity';

const root = mkdtempSync(join(tmpdir(), 'mcpx-activity-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(root, `t${++n}`);

function logOf(dir: string | undefined, values: Record<string, unknown> = {}, defs: ServerDef[] = []) {
  const lines: string[] = [];
  const settings = new Settings([{ source: 'flag', values }]);
  const log = new ActivityLog({
    settings,
    defs: () => defs,
    log: (l) => lines.push(l),
    file: dir ? { dir, writer: 'daemon' } : undefined,
  });
  return { log, lines };
}

const linesIn = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

test('records are written owner-only (0600 in a 0700 directory), without result or arguments by default', async () => {
  const dir = fresh();
  const { log } = logOf(dir);
  log.append(record(1, { arguments: { q: 'the question' } }));
  await log.flushed();
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  assert.deepEqual(readdirSync(dir), ['daemon.jsonl']);
  assert.equal(statSync(join(dir, 'daemon.jsonl')).mode & 0o777, 0o600);
  const [line] = linesIn(join(dir, 'daemon.jsonl'));
  assert.equal(line!.target, 'tool-1');
  assert.match(String(line!.argsDigest), /^[0-9a-f]{64}$/);
  assert.equal(line!.arguments, undefined, 'digest: no arguments on disk');
  assert.equal(line!.result, undefined, 'a result is never written');
  assert.doesNotMatch(readFileSync(join(dir, 'daemon.jsonl'), 'utf8'), /the question|result 1/);
  await log.close();
});

test('full: every configured secret is masked in the arguments on disk, and long strings are cut', async () => {
  const secrets = {
    env: 'env-secret-6b1f0d2a',
    header: 'hdr-secret-91ce7f30',
    userinfo: 'pw-secret-4a7d2e19',
    query: 'q-secret-c3b8a5f1',
    auth: 'auth-secret-0e9d8c7b',
  };
  const config = parseConfig(
    {
      servers: {
        a: { command: 'x', env: { API_KEY: secrets.env } },
        b: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: `Bearer ${secrets.header}` } },
        c: { type: 'http', url: `http://u:${secrets.userinfo}@127.0.0.1:9/mcp?token=${secrets.query}` },
        d: { type: 'http', url: 'http://127.0.0.1:9/mcp', auth: { type: 'bearer', token: secrets.auth } },
      },
    },
    'test',
    { env: {} },
  );
  assert.deepEqual(config.issues, []);
  const dir = fresh();
  const { log } = logOf(dir, { 'activity.arguments': 'full' }, config.servers);
  const long = 'x'.repeat(5000);
  const args = {
    text: `use ${secrets.env} and ${secrets.header}`,
    nested: { list: [secrets.userinfo, `token=${secrets.query}`], [secrets.auth]: 'as a key' },
    long,
    // A secret right at the cut: redacted before the cut, so no prefix of it survives.
    edge: `${'y'.repeat(1020)}${secrets.env}`,
  };
  log.append(
    record(2, {
      arguments: args,
      outcome: { status: 'error', code: -32603, message: `failed with ${secrets.header}` },
    }),
  );
  await log.flushed();
  const text = readFileSync(join(dir, 'daemon.jsonl'), 'utf8');
  for (const [kind, s] of Object.entries(secrets)) {
    assert.ok(!text.includes(s), `the ${kind} secret is in the log`);
    assert.ok(!text.includes(s.slice(0, 8)), `a prefix of the ${kind} secret is in the log`);
  }
  const [line] = linesIn(join(dir, 'daemon.jsonl'));
  const a = line!.arguments as Record<string, unknown>;
  assert.equal(a.text, 'use *** and ***');
  assert.deepEqual(a.nested, { list: ['***', 'token=***'], '***': 'as a key' });
  assert.equal(a.long, `${'x'.repeat(1024)}…[cut: 5000 chars]`);
  assert.equal((line!.outcome as JsonObject).message, 'failed with ***');
  // In memory (the editor's view) the arguments are redacted too, the result kept.
  const [mem] = log.recent();
  assert.equal((mem!.arguments as JsonObject).text, 'use *** and ***');
  assert.deepEqual(mem!.result, { content: [{ type: 'text', text: 'result 2' }] });
  await log.close();
});

test('rotation keeps 100,000 records within activity.maxBytes, the newest present', async () => {
  const dir = fresh();
  const maxBytes = 256 * 1024;
  const { log, lines } = logOf(dir, { 'activity.maxBytes': maxBytes });
  const total = 100_000;
  for (let i = 0; i < total; i++) {
    log.append(record(i));
    if (i % 100 === 99) await log.flushed();
  }
  await log.flushed();
  const files = readdirSync(dir).sort();
  assert.deepEqual(files, ['daemon.jsonl', 'daemon.jsonl.1', 'daemon.jsonl.2', 'daemon.jsonl.3']);
  const size = files.reduce((s, f) => s + statSync(join(dir, f)).size, 0);
  assert.ok(size <= maxBytes, `${size} bytes on disk, bound ${maxBytes}`);
  assert.ok(size > maxBytes / 2, `the rotations are kept (${size} bytes)`);
  const newest = linesIn(join(dir, 'daemon.jsonl')).at(-1)!;
  assert.equal(newest.target, `tool-${total - 1}`);
  const history = await log.history({}, 5);
  assert.deepEqual(history.map((r) => r.target).sort(), [1, 2, 3, 4, 5].map((k) => `tool-${total - k}`).sort());
  assert.deepEqual(lines, [], 'nothing dropped, nothing failed');
  await log.close();
});

test('retention: files last written before activity.retention are removed, older records not shown', async () => {
  const dir = fresh();
  mkdirSync(dir, { recursive: true });
  const old = Date.now() / 1000 - 3 * 86_400;
  const stale = ['standalone-1234.jsonl', 'daemon.jsonl.2', 'editor-abc.jsonl.1'];
  for (const f of stale) {
    writeFileSync(join(dir, f), `${JSON.stringify(record(9, { time: new Date(old * 1000).toISOString() }))}\n`);
    utimesSync(join(dir, f), old, old);
  }
  // A recent file of another writer holding one old and one new record.
  const recent = join(dir, 'editor-abc.jsonl');
  writeFileSync(
    recent,
    `${JSON.stringify(record(7, { time: new Date(old * 1000).toISOString(), target: 'old' }))}\n${JSON.stringify(record(8, { target: 'new' }))}\n`,
  );
  const { log } = logOf(dir, { 'activity.retention': '2d' });
  log.append(record(1, { target: 'mine' }));
  await log.flushed();
  assert.deepEqual(readdirSync(dir).sort(), ['daemon.jsonl', 'editor-abc.jsonl']);
  const shown = (await log.history({}, 100)).map((r) => r.target).sort();
  assert.deepEqual(shown, ['mine', 'new'], 'the record older than the retention is not shown');
  await log.close();
});

test('a torn last line is skipped when read, and ended before the next record is written', async () => {
  const dir = fresh();
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'daemon.jsonl');
  writeFileSync(file, `${JSON.stringify(record(1, { target: 'whole' }))}\n{"time":"2026-12-02T0`);
  assert.deepEqual(
    (await readActivity(dir, {}, 10, 0)).map((r) => r.target),
    ['whole'],
  );
  const { log } = logOf(dir);
  log.append(record(2, { target: 'next' }));
  await log.flushed();
  assert.deepEqual((await readActivity(dir, {}, 10, 0)).map((r) => r.target).sort(), ['next', 'whole']);
  assert.equal(
    readFileSync(file, 'utf8').split('\n').filter(Boolean).length,
    3,
    'the torn line stays a line of its own',
  );
  await log.close();
});

test('a full disk is reported once, not thrown; the records stay in memory', async () => {
  const dir = fresh();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Every write to /dev/full fails with ENOSPC.
  symlinkSync('/dev/full', join(dir, 'daemon.jsonl'));
  const { log, lines } = logOf(dir);
  for (let i = 0; i < 50; i++) {
    log.append(record(i));
    if (i % 10 === 9) await log.flushed();
  }
  await log.flushed();
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(lines[0]!, /activity: cannot write .*daemon\.jsonl \(ENOSPC\)/);
  assert.equal(log.recent().length, 50);
  assert.equal((await log.history({}, 100)).length, 50, 'what could not be written is still shown');
  await log.close();
});

test('a directory that cannot be made (read-only, or a file in its place) is reported once', async () => {
  const parent = fresh();
  writeFileSync(parent, 'a file, not a directory');
  const { log, lines } = logOf(join(parent, 'activity'));
  for (let i = 0; i < 20; i++) {
    log.append(record(i));
    await log.flushed();
  }
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(lines[0]!, /activity: cannot write .* \((ENOTDIR|EEXIST)\)/);
  await log.close();
});

test('the queue is bounded: a burst past it is dropped, reported once, then counted', async () => {
  const dir = fresh();
  const { log, lines } = logOf(dir);
  for (let i = 0; i < 12_000; i++) log.append(record(i));
  await log.flushed();
  assert.deepEqual(lines, [
    'activity: records dropped (10000 records queued); the count follows once the log catches up',
    'activity: 2000 record(s) were dropped',
  ]);
  assert.equal(linesIn(join(dir, 'daemon.jsonl')).length, 10_000);
  await log.close();
});

test('the feed: newest first, filtered, told of each record; large results cut; nothing when disabled', async () => {
  const { log } = logOf(undefined);
  const seen: string[] = [];
  const off = log.onRecord((r) => seen.push(r.target));
  for (let i = 0; i < 6; i++) log.append(record(i));
  const big = 'z'.repeat(100_000);
  log.append(record(6, { result: { content: [{ type: 'text', text: big }] }, bytesOut: big.length + 40 }));
  assert.deepEqual(
    log.recent({ client: 'agent-a' }).map((r) => r.target),
    ['tool-5', 'tool-3', 'tool-1'],
  );
  assert.deepEqual(
    log.recent({ server: 'other' }, 1).map((r) => r.target),
    ['tool-6'],
  );
  assert.deepEqual(seen, ['tool-0', 'tool-1', 'tool-2', 'tool-3', 'tool-4', 'tool-5', 'tool-6']);
  const text = (log.recent({}, 1)[0]!.result!.content as JsonObject[])[0]!.text as string;
  assert.equal(text.length < 5000, true);
  assert.match(text, /…\[cut: 100000 chars\]$/);
  off();
  const disabled = logOf(undefined, { 'activity.enabled': false }).log;
  disabled.append(record(1));
  assert.deepEqual(disabled.recent(), []);
  assert.throws(
    () => new Settings([{ source: 'flag', values: { 'activity.arguments': 'all' } }]),
    /expected one of digest, full/,
  );
  assert.equal(
    new Settings([{ source: 'flag', values: { 'activity.retention': '7d' } }]).duration('activity.retention'),
    7 * 86_400_000,
  );
  await log.close();
});
