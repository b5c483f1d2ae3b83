// A call is forwarded only under a name the server lists now (docs/gateway.md "Unlisted tool names"): the
// tools filter, the pins and the permission rules name tools exactly, and an upstream that resolves names
// loosely would run `wipe` for `WIPE`, `wipе` (Cyrillic е), `ｗｉｐｅ` or ` wipe`. Case, Unicode and
// whitespace variants of a name the filter denies, one a rule denies, one held by its pin and one never
// listed are refused through pass-through, mcpx_call, an mcpx_exec script, a 2025-11-25 task and
// POST /v1/call — and the upstream's record shows none of them reached it. A server whose definition says
// `forwardUnlisted` gets them, as before.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type TestGateway, fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { until } from '../harness/wait';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-unlisted-'));
const record = join(dir, 'up.jsonl');
const looseRecord = join(dir, 'loose.jsonl');
const REV = '2025-11-25';
let gw: TestGateway;
let c: HttpClient;

before(async () => {
  const fixture = (name: string, file: string) =>
    fixtureCommand([
      '--rev',
      REV,
      '--name',
      name,
      '--tool-name',
      'wipe',
      '--tool-name',
      'danger',
      '--rug',
      'description',
      '--record',
      file,
    ]);
  gw = await gatewayFor(
    {
      up: { ...fixture('up', record), tools: { deny: ['wipe'] } },
      loose: { ...fixture('loose', looseRecord), tools: { deny: ['wipe'] }, forwardUnlisted: true },
    },
    { 'mcp.passthrough': ['up'] },
    { permissions: { rules: [{ tool: 'danger', action: 'deny' }] } },
  );
  c = new HttpClient(gw.url, REV);
  await c.initialize();
  // Pinned at first sight, then the upstream changes rug: it is held (listed in its pinned form).
  await c.request('tools/list');
  let heard = false;
  gw.g.onEvent((e) => {
    if (e.type === 'list.changed' && e.server === 'up') heard = true;
  });
  await c.request('tools/call', { name: 'pull', arguments: {} });
  await until(() => heard, { what: "up's tools/list_changed" });
  await c.request('tools/list');
  await until(() => gw.g.pinViews('up')[0]?.held.some((h) => h.name === 'rug'), { what: 'rug held' });
});
after(async () => {
  await gw?.close();
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

const LOOKALIKE: Record<string, string> = { a: '\u0430', e: '\u0435', o: '\u043e', i: '\u0456', u: '\u0443' };
/** Nine spellings of `n` an upstream might read as `n`. */
const variants = (n: string): string[] => [
  n.toUpperCase(),
  n[0]!.toUpperCase() + n.slice(1),
  n.replace(/[aeoiu]/, (ch) => LOOKALIKE[ch]!),
  [...n].map((ch) => String.fromCharCode(ch.charCodeAt(0) + 0xfee0)).join(''),
  ` ${n}`,
  `${n} `,
  `${n}\t`,
  `${n[0]}\u200b${n.slice(1)}`,
  `${n}\u00a0`,
];
/** Denied by the tools filter, by a permission rule, held by its pin, never listed. */
const NAMES = ['wipe', 'danger', 'rug', 'admin'];
const ALL = [...NAMES.flatMap(variants), 'admin'];

/** The tool names `file`'s upstream was asked to call. */
const reached = (file: string): string[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { dir: string; frame: Json })
    .filter((l) => l.dir === 'in' && l.frame.method === 'tools/call')
    .map((l) => String((l.frame.params as Json).name));

const refused = (r: { result?: Json; error?: unknown }) => r.error !== undefined || r.result?.isError === true;

describe('unlisted spellings are not forwarded', { timeout: 120_000 }, () => {
  test('pass-through tools/call', async () => {
    for (const name of ALL) {
      const r = await c.request('tools/call', { name, arguments: { text: 'x' } });
      assert.equal(r.error?.code, -32602, `${JSON.stringify(name)}: ${JSON.stringify(r.response)}`);
      assert.match(String(r.error?.message), /no tool named/);
    }
  });

  test('mcpx_call', async () => {
    for (const tool of ALL) {
      const r = await c.request('tools/call', { name: 'mcpx_call', arguments: { server: 'up', tool, arguments: {} } });
      assert.ok(refused(r), `${JSON.stringify(tool)}: ${JSON.stringify(r.response)}`);
    }
  });

  test('each call of an mcpx_exec script', async () => {
    const script = `const out = [];
for (const tool of ${JSON.stringify(ALL)}) {
  try { const r = await mcpx.call('up', tool, {}); out.push(r.isError ? 'refused' : 'called ' + tool); }
  catch (e) { out.push('refused'); }
}
return out;`;
    const r = await c.request('tools/call', { name: 'mcpx_exec', arguments: { script } });
    const result = (r.result?.structuredContent as Json | undefined)?.result;
    assert.deepEqual(
      result,
      ALL.map(() => 'refused'),
      JSON.stringify(r.response),
    );
  });

  test('a 2025-11-25 task, through mcpx_call and by the name itself', async () => {
    for (const tool of ALL) {
      for (const params of [
        { name: 'mcpx_call', arguments: { server: 'up', tool, arguments: {} }, task: { ttl: 60_000 } },
        { name: tool, arguments: {}, task: { ttl: 60_000 } },
      ]) {
        const started = await c.request('tools/call', params);
        if (started.error) continue; // refused before any task was made
        const taskId = (started.result?.task as Json | undefined)?.taskId;
        assert.ok(taskId, JSON.stringify(started.response));
        const r = await c.request('tasks/result', { taskId });
        assert.ok(refused(r), `${JSON.stringify(tool)}: ${JSON.stringify(r.response)}`);
      }
    }
  });

  test('POST /v1/call: 404', async () => {
    for (const tool of ALL) {
      const res = await fetch(new URL(`/v1/call/up/${encodeURIComponent(tool)}`, gw.bare), {
        method: 'POST',
        headers: { Authorization: `Bearer ${gw.secret}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      assert.equal(res.status, 404, JSON.stringify(tool));
    }
  });

  test('none of them reached the upstream', () => {
    const got = reached(record);
    assert.deepEqual(
      got.filter((n) => ALL.includes(n)),
      [],
    );
    assert.ok(got.includes('pull'), 'the record is read');
  });

  test('forwardUnlisted: the server that takes unlisted names gets them; its filter still refuses the exact name', async () => {
    for (const tool of ['WIPE', 'admin']) {
      await c.request('tools/call', { name: 'mcpx_call', arguments: { server: 'loose', tool, arguments: {} } });
    }
    const filtered = await c.request('tools/call', {
      name: 'mcpx_call',
      arguments: { server: 'loose', tool: 'wipe', arguments: {} },
    });
    assert.ok(refused(filtered));
    assert.deepEqual(reached(looseRecord), ['WIPE', 'admin']);
  });
});
