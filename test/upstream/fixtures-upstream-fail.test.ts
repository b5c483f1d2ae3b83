// The fixture upstream's --fail modes and options (test/fixtures/upstream/README.md): each fails as
// specified, and every frame it still sends validates against its revision's schema.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  HttpPeer,
  MODERN,
  StdioPeer,
  exitCode,
  killAll,
  startFixture,
  startHttpFixture,
  type Obj,
} from '../fixtures/upstream/client';
import { stays } from '../harness/wait';

const tmp = mkdtempSync(join(tmpdir(), 'fixtures-upstream-'));
after(() => {
  killAll();
  rmSync(tmp, { recursive: true, force: true });
});

const result = (f: Obj): Obj => {
  assert.ok('result' in f, `expected a result, got ${JSON.stringify(f).slice(0, 300)}`);
  return f.result as Obj;
};
const error = (f: Obj): { code: number; message: string; data?: unknown } => {
  assert.ok('error' in f, `expected an error, got ${JSON.stringify(f).slice(0, 300)}`);
  return f.error as { code: number; message: string; data?: unknown };
};
const firstText = (f: Obj): string => ((result(f).content as Obj[])[0] as { text: string }).text;
const noProblems = (p: { problems: string[] }): void => assert.deepEqual(p.problems, []);
describe('--fail modes and options', { concurrency: true }, () => {
  test('crash-on-call: exit code 3 on tools/call crash, other tools work', async () => {
    const p = new StdioPeer('2025-06-18', ['--fail', 'crash-on-call']);
    result(await p.initialize());
    assert.equal(firstText(await p.request('tools/call', { name: 'echo', arguments: { text: 'ok' } })), 'ok');
    void p.request('tools/call', { name: 'crash' });
    assert.equal(await exitCode(p.child), 3);
    noProblems(p);
  });
  test('hang: tools/call is never answered, the rest is', async () => {
    const p = new StdioPeer(MODERN, ['--fail', 'hang']);
    assert.equal(await p.requestWithin(300, 'tools/call', { name: 'echo', arguments: { text: 'x' } }), undefined);
    result(await p.request('tools/list'));
    p.child.kill();
    noProblems(p);
  });
  test('no-init: initialize and server/discover are never answered', async () => {
    const legacy = new StdioPeer('2025-11-25', ['--fail', 'no-init']);
    const modern = new StdioPeer(MODERN, ['--fail', 'no-init']);
    const init = legacy.initialize();
    let answered = false;
    void init.then(
      () => (answered = true),
      () => (answered = true),
    );
    await stays(() => !answered, { for: 300, what: 'no answer to initialize' });
    assert.equal(await modern.requestWithin(300, 'server/discover'), undefined);
    result(await modern.request('tools/list'));
    legacy.child.kill();
    modern.child.kill();
    noProblems(legacy);
    noProblems(modern);
  });
  test('garbage: a non-JSON line before each response after initialize', async () => {
    const p = new StdioPeer('2025-03-26', ['--fail', 'garbage']);
    result(await p.initialize());
    assert.deepEqual(p.garbage, []);
    result(await p.request('tools/list'));
    result(await p.request('ping'));
    assert.deepEqual(p.garbage, ['this is not json', 'this is not json']);
    await p.close();
    noProblems(p);
  });
  test('exit-at-once: exit code 1', async () => {
    assert.equal(await exitCode(startFixture(['--rev', '2025-06-18', '--fail', 'exit-at-once'])), 1);
  });
  test('--require-env: exit 4 without it, serves with it', async () => {
    assert.equal(await exitCode(startFixture(['--rev', '2025-06-18', '--require-env', 'FIXTURE_TOKEN=s3cret'])), 4);
    const p = new StdioPeer('2025-06-18', ['--require-env', 'FIXTURE_TOKEN=s3cret'], { FIXTURE_TOKEN: 's3cret' });
    result(await p.initialize());
    await p.close();
    noProblems(p);
  });
  test('--require-header / --require-query: 401 without them', async () => {
    const { child, url } = await startHttpFixture([
      '--rev',
      MODERN,
      '--transport',
      'http',
      '--require-header',
      'Authorization: Bearer t',
      '--require-query',
      'k=v',
    ]);
    const p = new HttpPeer(MODERN, url);
    const body = { jsonrpc: '2.0', id: 1, method: 'server/discover', params: p.params() };
    assert.equal(
      (await fetch(`${url}?k=v`, { method: 'POST', headers: p.headers(body), body: JSON.stringify(body) })).status,
      401,
    );
    p.extraHeaders = { Authorization: 'Bearer t' };
    assert.equal(
      (await fetch(url, { method: 'POST', headers: p.headers(body), body: JSON.stringify(body) })).status,
      401,
    );
    const ok = new HttpPeer(MODERN, `${url}?k=v`);
    ok.extraHeaders = { Authorization: 'Bearer t' };
    result(await ok.request('server/discover'));
    child.kill();
    noProblems(ok);
  });
  test('--app: the tool app_show with its _meta.ui from 2025-06-18 (none before), its ui:// resource as an MCP App', async () => {
    for (const rev of ['2025-03-26', '2025-06-18', '2025-11-25'] as const) {
      const p = new StdioPeer(rev, ['--app']);
      result(await p.initialize());
      const tool = (result(await p.request('tools/list')).tools as Obj[]).find((t) => t.name === 'app_show');
      if (rev === '2025-03-26') assert.equal(tool, undefined, rev);
      else {
        assert.deepEqual(tool?._meta, { ui: { resourceUri: 'ui://fixture/app.html' } }, rev);
        assert.equal(
          firstText(await p.request('tools/call', { name: 'app_show', arguments: { text: 'x' } })),
          'shown: x',
        );
        const content = (
          result(await p.request('resources/read', { uri: 'ui://fixture/app.html' })).contents as Obj[]
        )[0]!;
        assert.equal(content.mimeType, 'text/html;profile=mcp-app');
        assert.match(String(content.text), /^<!DOCTYPE html>[\s\S]*<button id="call">/);
      }
      await p.close();
      noProblems(p);
    }
  });

  test('--name, --tools, --page-size, --no-completions, --record', async () => {
    const rec = join(tmp, 'stdio.jsonl');
    const p = new StdioPeer('2025-11-25', [
      '--name',
      'up1',
      '--tools',
      '3',
      '--page-size',
      '10',
      '--no-completions',
      '--record',
      rec,
    ]);
    const init = result(await p.initialize());
    assert.deepEqual([(init.serverInfo as Obj).name, 'completions' in (init.capabilities as Obj)], ['up1', false]);
    const names: unknown[] = [];
    let cursor: unknown;
    do {
      const r = result(await p.request('tools/list', cursor === undefined ? {} : { cursor }));
      names.push(...(r.tools as Obj[]).map((t) => t.name));
      cursor = r.nextCursor;
    } while (cursor !== undefined);
    assert.deepEqual(names.slice(-3), ['t000', 't001', 't002']);
    assert.equal(firstText(await p.request('tools/call', { name: 't001', arguments: { text: 'x' } })), 'x');
    assert.match(firstText(await p.request('tools/call', { name: 'whoami' })), /^up1:/);
    assert.equal(
      error(
        await p.request('completion/complete', {
          ref: { type: 'ref/prompt', name: 'greet' },
          argument: { name: 'who', value: '' },
        }),
      ).code,
      -32601,
    );
    await p.close();
    const lines = readFileSync(rec, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { dir: string; frame: Obj });
    assert.equal(lines[0]!.dir, 'in');
    assert.equal(lines[0]!.frame.method, 'initialize');
    assert.equal(lines.filter((l) => l.dir === 'out').length, p.frames.length);
    noProblems(p);
  });
});
