// Names, URIs, templates, schemas and log text a hostile upstream (test/fixtures/upstream/hostile.ts)
// builds to escape: escape sequences and newlines, NUL, `/` and `..`, 10,000 characters, duplicates,
// mcpx:// URIs of another server, and shapes that make a regular expression backtrack for hours. Every
// frame the clients get is validated against their revision's schema (test/harness/wire.ts).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Broker } from '../../src/gateway/inbox/broker';
import { globMatches } from '../../src/kit/globs';
import { type PersonPort, routeQuestion } from '../../src/gateway/inbox/questions';
import type { JsonObject } from '../../src/protocol/jsonrpc';
import { hostile, killHostiles } from '../harness/hostile';
import { repoRoot } from '../harness/gateway';
import { gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json, StdioClient } from '../harness/wire';
import { until } from '../harness/wait';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-hostile-names-'));
after(() => {
  killAll();
  killHostiles();
  rmSync(dir, { recursive: true, force: true });
});

const REVS = ['2024-11-05', '2025-11-25', '2026-07-28'] as const;
const text = (r: Json | undefined) => String(((r?.content as Json[]) ?? [])[0]?.text ?? '');
const LONG = 'x'.repeat(10_000);
const NAMES = ['\u001b[31mred\u001b[0m', 'a\nb', LONG, '../etc', 'a/b', 'nul\u0000x', '\u202eevil', 'y'.repeat(100)];
const TIMEOUT = { timeout: 60_000 };

async function clients(url: string): Promise<HttpClient[]> {
  const out: HttpClient[] = [];
  for (const rev of REVS) {
    const c = new HttpClient(url, rev);
    if (rev !== '2026-07-28') await c.initialize();
    out.push(c);
  }
  return out;
}

/** A log line that carries a character a terminal or a log reader would obey (a control character but
 *  tab, or a bidirectional override), or undefined. */
const raw = (logs: string[]) =>
  logs.find((l) =>
    [...l].some((ch) => {
      const c = ch.charCodeAt(0);
      return (c < 0x20 && c !== 0x09) || (c >= 0x7f && c <= 0x9f) || c === 0x202e;
    }),
  );

describe('names built to escape', () => {
  test(
    'pass-through: every tool name shown is within 64 characters of [A-Za-z0-9_.-], a duplicate is listed once, and each is callable',
    TIMEOUT,
    async () => {
      const logs: string[] = [];
      const gw = await gatewayFor(
        { up: hostile('--tools', JSON.stringify([...NAMES, 'dup', 'dup'])) },
        { 'mcp.passthrough': ['up'] },
        {},
        { log: (l) => logs.push(l) },
      );
      try {
        for (const c of await clients(gw.url)) {
          const r = await c.request('tools/list');
          assert.equal(r.error, undefined, `${c.rev}: ${r.error?.message}`);
          const shown = (r.result!.tools as Json[]).map((t) => String(t.name));
          for (const name of shown) assert.match(name, /^[A-Za-z0-9_.-]{1,64}$/, `${c.rev}: ${JSON.stringify(name)}`);
          assert.equal(shown.filter((s) => s === 'dup').length, 1, 'a name listed twice is shown once');
          // The shown name reaches the upstream under its own: the tool answers with the name it was called by.
          const long = shown.find((s) => s.startsWith('xxxx'))!;
          assert.equal(text((await c.request('tools/call', { name: long, arguments: {} })).result), LONG);
          const esc = shown.find((s) => s.includes('31mred'))!;
          assert.equal(text((await c.request('tools/call', { name: esc, arguments: {} })).result), NAMES[0]);
        }
        assert.ok(logs.some((l) => /\[up\] tool "dup" is listed twice; left out of its tools/.test(l)));
        assert.equal(raw(logs), undefined, 'no log line carries a control character');
      } finally {
        await gw.close();
      }
    },
  );

  test(
    'gateway mode: prompts named to escape are shown namespaced and safe; a duplicate does not fail the list',
    TIMEOUT,
    async () => {
      const gw = await gatewayFor({
        up: hostile('--prompts', JSON.stringify([...NAMES, 'dup', 'dup'])),
        other: hostile(),
      });
      try {
        for (const c of await clients(gw.url)) {
          const r = await c.request('prompts/list');
          assert.equal(r.error, undefined, `${c.rev}: ${r.error?.message}`);
          const shown = (r.result!.prompts as Json[]).map((p) => String(p.name));
          assert.equal(shown.length, NAMES.length + 1);
          for (const name of shown) assert.match(name, /^up_[A-Za-z0-9_.-]{1,61}$/);
          const got = await c.request('prompts/get', {
            name: shown.find((s) => s.startsWith('up_xxx'))!,
            arguments: {},
          });
          assert.match(JSON.stringify(got.result), new RegExp(`prompt ${LONG}`));
        }
      } finally {
        await gw.close();
      }
    },
  );

  test(
    'what an upstream writes to stderr is logged printable: no escape sequence, no carriage return, one line each',
    TIMEOUT,
    async () => {
      const logs: string[] = [];
      const gw = await gatewayFor({ up: hostile() }, {}, {}, { log: (l) => logs.push(l) });
      try {
        const c = new HttpClient(gw.url, '2025-11-25');
        await c.initialize();
        const forged = '\u001b]0;owned\u0007\u001b[2J\r[mcpx] forged line\u2028also forged';
        await c.request('tools/call', {
          name: 'mcpx_call',
          arguments: { server: 'up', tool: 'say', arguments: { text: forged } },
        });
        const line = await until(() => logs.find((l) => l.includes('forged line')), { what: 'the stderr line' });
        assert.equal(
          line,
          '[up] \\u{1b}]0;owned\\u{7}\\u{1b}[2J\\u{d}[mcpx] forged line\\u{2028}also forged',
          'each control character written as an escape',
        );
        assert.equal(raw(logs), undefined);
      } finally {
        await gw.close();
      }
    },
  );
});

describe('resource URIs and templates built to escape', () => {
  const URIS = [
    'mcpx://other/secret',
    'mcpx://up/../../etc',
    'file:///../../etc/passwd',
    `z://${'z'.repeat(10_000)}`,
    'x:\u001b[2J\nfake',
  ];

  test(
    'pass-through: an mcpx:// URI (another server) and a string that is no URI are left out; the rest listed as they are',
    TIMEOUT,
    async () => {
      const logs: string[] = [];
      const gw = await gatewayFor(
        { up: hostile('--resources', JSON.stringify(URIS)), other: hostile() },
        { 'mcp.passthrough': ['up'] },
        {},
        { log: (l) => logs.push(l) },
      );
      try {
        for (const c of await clients(gw.url)) {
          const r = await c.request('resources/list');
          const uris = (r.result!.resources as Json[]).map((x) => String(x.uri));
          assert.deepEqual(uris, [URIS[2], URIS[3]], c.rev);
        }
        assert.ok(logs.some((l) => l.includes('"mcpx://other/secret" is an mcpx:// URI, which names another server')));
        assert.ok(logs.some((l) => l.includes('is not a URI; left out of its resources')));
        assert.equal(raw(logs), undefined);
      } finally {
        await gw.close();
      }
    },
  );

  test('gateway mode: each is namespaced under its own server and read there', TIMEOUT, async () => {
    const gw = await gatewayFor({ up: hostile('--resources', JSON.stringify(URIS)), other: hostile() });
    try {
      for (const c of await clients(gw.url)) {
        const listed = ((await c.request('resources/list')).result!.resources as Json[]).map((x) => String(x.uri));
        assert.equal(listed.length, URIS.length);
        for (const uri of listed) assert.ok(uri.startsWith('mcpx://up/'), uri);
        const read = await c.request('resources/read', { uri: listed[0]! });
        assert.deepEqual(
          (read.result!.contents as Json[]).map((x) => x.text),
          ['read mcpx://other/secret'],
          'read at up, never at other',
        );
      }
    } finally {
      await gw.close();
    }
  });

  test('a template of 200,000 "{" and one of ten variables: listed and matched in linear time', TIMEOUT, async () => {
    const file = join(dir, 'templates.json');
    writeFileSync(file, JSON.stringify(['{'.repeat(200_000), '{a}{b}{c}{d}{e}{f}{g}{h}{i}{j}!']));
    const gw = await gatewayFor(
      { up: hostile('--templates', `@${file}`), pt: hostile('--templates', `@${file}`) },
      { 'mcp.passthrough': ['pt'] },
    );
    try {
      const c = new HttpClient(gw.url, '2025-11-25');
      await c.initialize();
      const listed = (await c.request('resources/templates/list')).result!.resourceTemplates as Json[];
      assert.ok(listed.some((t) => String(t.uriTemplate).startsWith('mcpx://up/%7B%7B')));
      // A bare URI is located by the pass-through server's templates: eighty characters against ten
      // variables and a literal it lacks.
      const read = await c.request('resources/read', { uri: `q://${'x'.repeat(80)}` });
      assert.match(JSON.stringify(read.result), /read q:\/\/x+/);
    } finally {
      await gw.close();
    }
  });
});

describe('shapes that make a regular expression backtrack', () => {
  // The gateway runs in a process of its own here: what used to hold its event loop for hours holds
  // only that process, and the test fails when the answer does not come (`within`).
  function standalone(servers: Record<string, unknown>, settings: Json = {}): StdioClient {
    const config = join(dir, `c${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(config, JSON.stringify({ servers, settings }));
    const cli = join(repoRoot(), 'dist', 'cli.js');
    return new StdioClient(
      process.execPath,
      [cli, 'serve', '--transport', 'stdio', '--standalone', '--config', config],
      '2025-11-25',
    );
  }
  const within = <T>(what: string, p: Promise<T>): Promise<T> =>
    Promise.race([
      p,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`no answer to ${what} within 60 s`)), 60_000).unref(),
      ),
    ]);

  test("a glob of the server's tools filter against a 3,000-character name", TIMEOUT, async () => {
    const name = 'a'.repeat(3000);
    const c = standalone(
      { up: { ...hostile('--tools', JSON.stringify([name])), tools: { deny: ['*a*a*a*b'] } } },
      { 'mcp.passthrough': ['up'] },
    );
    try {
      await c.initialize();
      const tools = ((await within('tools/list', c.request('tools/list'))).result as Json).tools as Json[];
      assert.ok(
        tools.some((t) => String(t.name).startsWith('aaaa')),
        'not denied: it has no b',
      );
    } finally {
      await c.close();
    }
    assert.equal(globMatches('*a*a*a*b', `${name}b`), true);
    assert.equal(globMatches('read_*', 'read_file'), true);
    assert.equal(globMatches('*_admin', 'x_admin_y'), false);
  });

  test(
    'an outputSchema pattern that backtracks, against the structuredContent of the same upstream; and an inputSchema one against a client',
    TIMEOUT,
    async () => {
      const evil = { type: 'string', pattern: '^(a+)+$' };
      const tools = [
        {
          tool: {
            name: 'evil_out',
            inputSchema: { type: 'object' },
            outputSchema: { type: 'object', properties: { x: evil } },
          },
          result: { content: [{ type: 'text', text: 'out' }], structuredContent: { x: `${'a'.repeat(40)}!` } },
        },
        {
          tool: { name: 'evil_in', inputSchema: { type: 'object', properties: { x: evil } } },
          result: { content: [{ type: 'text', text: 'in' }] },
        },
      ];
      const c = standalone({ up: hostile('--tool-json', JSON.stringify(tools)) });
      try {
        await c.initialize();
        const call = (tool: string, args: Json) =>
          within(
            tool,
            c.request('tools/call', { name: 'mcpx_call', arguments: { server: 'up', tool, arguments: args } }),
          );
        assert.equal(text((await call('evil_out', {})).result as Json), 'out');
        assert.equal(text((await call('evil_in', { x: `${'a'.repeat(40)}!` })).result as Json), 'in');
      } finally {
        await c.close();
      }
    },
  );

  test('a 1 MB log message of word characters is passed on (its secrets masked in linear time)', TIMEOUT, async () => {
    const c = standalone({ up: hostile() });
    try {
      await c.initialize();
      await c.request('logging/setLevel', { level: 'debug' });
      const r = await within(
        'the call',
        c.request('tools/call', {
          name: 'mcpx_call',
          arguments: { server: 'up', tool: 'lines', arguments: { count: 1, kb: 1024 } },
        }),
      );
      assert.equal(text(r.result as Json), 'lines done');
      const m = c.frames.find((f) => f.method === 'notifications/message');
      assert.equal(String((m?.params as Json | undefined)?.data).length, 1024 * 1024);
    } finally {
      await c.close();
    }
  });
});

describe('questions asked all at once', () => {
  test('the person is shown at most limits.questionsPerIdentity of one upstream at once; the rest wait at the broker or are refused', async () => {
    let shown = 0;
    const person: PersonPort = {
      can: () => true,
      ask: (_q, signal) =>
        new Promise((_resolve, reject) => {
          shown++;
          signal.addEventListener('abort', () => reject(new Error('withdrawn')), { once: true });
        }),
    };
    const broker = new Broker(60_000, undefined, undefined, () => ({ perIdentity: 3, total: 100 }));
    const ctl = new AbortController();
    const asked = Array.from({ length: 10 }, () =>
      routeQuestion(
        { native: true, person, broker, roots: [], log: () => undefined },
        {
          server: 'up',
          method: 'elicitation/create',
          params: { message: 'again?', requestedSchema: { type: 'object' } } as JsonObject,
          signal: ctl.signal,
          unowned: 'no call in flight',
        },
      ).catch((e: Error) => e.message),
    );
    await until(() => shown === 3 && broker.list().length === 3, { what: 'the questions to settle where they go' });
    ctl.abort();
    const outcomes = await Promise.all(asked);
    assert.equal(shown, 3, 'three at the person');
    assert.equal(
      outcomes.filter((o) => /limits\.questionsPerIdentity/.test(String(o))).length,
      4,
      'four refused at the broker',
    );
    broker.close();
  });
});
