// mcpx against a hostile upstream's requests (test/fixtures/upstream/hostile.ts; docs/security.md "Bounds",
// "Hostile shapes"): questions without end, forked children, and responses nobody asked for or nobody can
// read — through real clients of the gateway, asserted by errors, counts and bytes, never by durations.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { events, hostile, httpHostile } from '../harness/hostile';
import { alive } from '../harness/process';
import { fixtureCommand, gatewayFor } from '../harness/upstreams';
import { HttpClient } from '../harness/wire';
import { until } from '../harness/wait';
import { LEGACY, MODERN, text, call, record, standalone } from './hostileKit';

describe('questions without end', () => {
  test('an upstream that asks again after every answer: the call ends after proto.askRounds questions, naming the setting', async () => {
    const rec = record();
    const c = standalone(
      { up: hostile('--record', rec) },
      { 'pool.callTimeout': '20s', 'proto.askRounds': 4 },
      {
        elicitation: {},
      },
    );
    let asked = 0;
    c.answer = () => {
      asked++;
      return { action: 'accept', content: { a: 'again' } };
    };
    try {
      await c.initialize();
      const r = await c.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'ask', arguments: { method: 'elicitation/create', times: 0 } },
      });
      const e = r.error as { code: number; message: string };
      assert.equal(e.code, -32603);
      assert.match(e.message, /upstream up asked more than 4 questions in one call \(proto\.askRounds\)/);
      assert.equal(asked, 4, 'the client was asked proto.askRounds times');
      const end = await until(() => events(rec).find((x) => x.event === 'asks'), {
        what: 'the upstream to stop asking',
      });
      assert.ok(Number(end.asked) <= 5, `the upstream asked ${end.asked} times: its call was cancelled`);
    } finally {
      await c.close();
    }
  });

  test('the same through the broker (a client that cannot answer): each question expires, and the call ends at proto.askRounds', async () => {
    const gw = await gatewayFor(
      { up: hostile() },
      { 'proto.askRounds': 3, 'pool.maxCallTime': '20s' },
      {},
      { questionTtlMs: 50 },
    );
    try {
      const c = new HttpClient(gw.url, LEGACY);
      await c.initialize();
      const r = await call(c, 'up', 'ask', { method: 'elicitation/create', times: 0 });
      assert.match(r.error!.message, /asked more than 3 questions in one call \(proto\.askRounds\)/);
      assert.deepEqual(gw.g.questions(), [], 'nothing left waiting at the broker');
    } finally {
      await gw.close();
    }
  });

  test('stdio: requests whose answers the upstream never reads close it at transport.maxLineBytes unread; the next call works', async () => {
    const gw = await gatewayFor({ up: hostile() }, { 'transport.maxLineBytes': 65_536, 'pool.callTimeout': '30s' });
    try {
      const c = new HttpClient(gw.url, LEGACY);
      await c.initialize();
      const r = await call(c, 'up', 'flood', { kind: 'ping', count: 1_000_000, deaf: true });
      assert.equal(r.error?.code, -32603);
      assert.match(
        r.error!.message,
        /upstream up is not reading what mcpx sends it \(more than 65536 bytes unread, transport\.maxLineBytes\)/,
      );
      assert.equal(text((await call(c, 'up', 'echo', { text: 'after' })).result), 'after');
    } finally {
      await gw.close();
    }
  });

  test('HTTP: requests whose answers the upstream leaves unanswered close it after a bounded number, failing its calls', async () => {
    const h = await httpHostile();
    const gw = await gatewayFor({ up: { type: 'http', url: h.url } }, { 'pool.callTimeout': '30s' });
    try {
      const c = new HttpClient(gw.url, LEGACY);
      await c.initialize();
      const r = await call(c, 'up', 'flood', { kind: 'ping', count: 300_000, deaf: true });
      assert.equal(r.error?.code, -32603);
      assert.match(
        r.error!.message,
        /upstream up is not reading what mcpx sends it \(64 answers to its requests unanswered\)/,
      );
    } finally {
      await gw.close();
      h.child.kill();
    }
  });
});

describe('forked children', () => {
  test('a child the upstream forked is killed when the upstream dies, and when the gateway stops', async () => {
    const gw = await gatewayFor({ up: hostile() });
    const pids: number[] = [];
    let closed = false;
    try {
      const c = new HttpClient(gw.url, LEGACY);
      await c.initialize();
      const orphan = Number(text((await call(c, 'up', 'fork', { die: true })).result));
      pids.push(orphan);
      assert.ok(orphan > 0 && alive(orphan));
      await until(() => !alive(orphan), { what: 'the child of the upstream that died to be gone', timeout: 10_000 });
      const kept = Number(text((await call(c, 'up', 'fork', {})).result));
      pids.push(kept);
      assert.ok(alive(kept));
      closed = true;
      await gw.close();
      await until(() => !alive(kept), {
        what: 'the child of the running upstream to be gone with the gateway',
        timeout: 10_000,
      });
    } finally {
      for (const p of pids.filter(alive)) process.kill(p, 'SIGKILL');
      if (!closed) await gw.close();
    }
  });
});

describe('responses nobody asked for, or nobody can read', () => {
  test('a response with both a result and an error, or an error without an integer code: the call fails at once, naming the upstream', async () => {
    const h = await httpHostile();
    const gw = await gatewayFor({ up: hostile(), web: { type: 'http', url: h.url } }, { 'pool.callTimeout': '60s' });
    try {
      const c = new HttpClient(gw.url, LEGACY);
      await c.initialize();
      for (const server of ['up', 'web']) {
        const both = await call(c, server, 'both');
        assert.equal(both.error?.code, -32603);
        assert.match(
          both.error!.message,
          new RegExp(`upstream ${server} sent an unreadable response: a result response`),
        );
        const bad = await call(c, server, 'error', { error: { code: 1.5, message: 'x' } });
        assert.match(bad.error!.message, /unreadable response: error must be \{code: integer, message: string\}/);
        assert.equal(text((await call(c, server, 'twice')).result), 'first', "the second answer is nobody's");
        assert.equal(text((await call(c, server, 'stray')).result), 'the right one');
      }
    } finally {
      await gw.close();
      h.child.kill();
    }
  });

  test('an upstream that never answers the handshake: the error names the bounds it was given, stdio and HTTP', async () => {
    const h = await httpHostile('--no-init');
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', LEGACY, '--fail', 'no-init']), web: { type: 'http', url: h.url } },
      { 'pool.startTimeout': '500ms', 'pool.probeTimeout': '200ms' },
    );
    try {
      const c = new HttpClient(gw.url, LEGACY);
      await c.initialize();
      const stdio = await call(c, 'up', 'echo', { text: 'x' });
      assert.match(
        stdio.error!.message,
        /upstream up could not be connected: server\/discover: no answer within 200 ms \(pool\.probeTimeout\); initialize: no answer within 500 ms \(pool\.startTimeout\)/,
      );
      const http = await call(c, 'web', 'echo', { text: 'x' });
      assert.match(
        http.error!.message,
        /upstream web could not be connected: .*initialize: no answer within 500 ms \(pool\.startTimeout\)/,
      );
    } finally {
      await gw.close();
      h.child.kill();
    }
  });

  test('20,000 responses nobody waits for are logged as a few lines and a count', async () => {
    const logs: string[] = [];
    const gw = await gatewayFor({ up: hostile() }, {}, {}, { log: (l) => logs.push(l) });
    try {
      const c = new HttpClient(gw.url, LEGACY);
      await c.initialize();
      assert.match(text((await call(c, 'up', 'flood', { kind: 'stray', count: 20_000 })).result), /flooded 20000/);
      await until(() => logs.find((l) => /\[up\] \d+ more line\(s\) about this upstream were not logged/.test(l)), {
        what: 'the count of the lines not logged',
      });
      const stray = logs.filter((l) => l.includes('a response nobody waits for')).length;
      assert.ok(stray >= 1 && stray < 1000, `${stray} lines for 20,000 stray responses`);
    } finally {
      await gw.close();
    }
  });

  test('results no revision can carry are refused, naming the field; every frame the clients get is valid', async () => {
    const results: Record<string, [unknown, RegExp]> = {
      notext: [{ content: [{ type: 'text' }] }, /content\.0\.text is required/],
      number: [{ content: [{ type: 'text', text: 5 }] }, /content\.0\.text must be a string/],
      nomime: [{ content: [{ type: 'image', data: 'x' }] }, /content\.0\.mimeType is required/],
      bogus: [
        { content: [{ type: 'bogus' }] },
        /content\.0\.type must be one of text, image, audio, resource_link, resource/,
      ],
      priority: [{ content: [{ type: 'text', text: 'x', annotations: { priority: 5 } }] }, /annotations\.priority/],
      noname: [{ content: [{ type: 'resource_link', uri: 'x://y' }] }, /content\.0\.name is required/],
      nobody: [
        { content: [{ type: 'resource', resource: { uri: 'x://y' } }] },
        /content\.0\.resource must have a text or a blob/,
      ],
    };
    const args = ['--rev', LEGACY, '--name', 'up'];
    for (const [k, [v]] of Object.entries(results)) args.push('--tool-result', `${k}=${JSON.stringify(v)}`);
    const gw = await gatewayFor({ up: fixtureCommand(args) }, { 'mcp.passthrough': ['up'] });
    try {
      for (const rev of ['2024-11-05', LEGACY, MODERN] as const) {
        const c = new HttpClient(gw.url, rev);
        if (rev !== MODERN) await c.initialize();
        for (const [k, [, why]] of Object.entries(results)) {
          const r = await c.request('tools/call', { name: k, arguments: {} });
          assert.equal(r.error?.code, -32603, `${rev} ${k}`);
          assert.match(r.error!.message, why);
        }
      }
    } finally {
      await gw.close();
    }
  });
});
