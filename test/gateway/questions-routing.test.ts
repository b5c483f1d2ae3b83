// Who is asked (docs/questions.md): a question the upstream withdraws, a client that refuses; URL-mode
// elicitation per revision; no question ever reaching a client that did not declare the capability; and
// the host port, where the person answers what the calling client cannot.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HttpPeer } from '../fixtures/upstream/client';
import type { Revision } from '../harness/schema';
import { hostile } from '../harness/hostile';
import { fixtureCommand, gatewayFor } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { until } from '../harness/wait';
import { ALL, answers, textOf } from './questionsKit';

describe('who answers, and when nobody may', () => {
  test('an upstream that withdraws its own question (notifications/cancelled): the client is told, with the upstream’s reason', async () => {
    const logs: string[] = [];
    const gw = await gatewayFor({ h: hostile() }, {}, {}, { log: (l) => logs.push(l) });
    try {
      const peer = new HttpPeer('2025-11-25', gw.url);
      peer.answer = () => new Promise<Json>(() => undefined); // it never answers: the upstream withdraws first
      await peer.initialize(ALL);
      const r = await peer.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'h', tool: 'withdraw', arguments: { ms: 200, reason: 'the user closed the tab' } },
      });
      assert.match(textOf(r), /withdrawn/);
      const asked = peer.frames.find((f) => f.method === 'elicitation/create')!;
      const cancelled = peer.frames.find((f) => f.method === 'notifications/cancelled')!;
      assert.equal((cancelled.params as Json).requestId, asked.id);
      assert.equal((cancelled.params as Json).reason, 'withdrawn by mcpx: h withdrew it: the user closed the tab');
      assert.ok(
        logs.some((l) => /\[h\] withdrew request h-\d+: the user closed the tab/.test(l)),
        logs.join('\n'),
      );
      assert.deepEqual(peer.problems, []);
    } finally {
      await gw.close();
    }
  });

  test('proto.native off: a client that declared elicitation is not asked; the question waits at the broker, saying why', async () => {
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) },
      { 'proto.native': false },
    );
    try {
      const peer = new HttpPeer('2025-11-25', gw.url);
      peer.answer = answers;
      await peer.initialize(ALL);
      const pending = peer.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'elicit', arguments: { text: 'N?' } },
      });
      const q = await until(() => gw.g.questions().find((x) => x.method === 'elicitation/create'), {
        what: 'the question at the broker',
      });
      assert.equal(q.reason, 'proto.native is off');
      assert.equal(gw.g.answer(q.id, { action: 'accept', content: { answer: 'from the broker' } }), undefined);
      assert.match(textOf(await pending), /from the broker/);
      assert.equal(peer.frames.filter((f) => f.method === 'elicitation/create').length, 0, 'never asked');
    } finally {
      await gw.close();
    }
  });

  test('a legacy POST outside any session cannot be asked: its question goes to the broker', async () => {
    const gw = await gatewayFor({ up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) });
    try {
      // 2025-03-26 headerless, no session: the request alone; it declares nothing it could be asked through.
      const c = new HttpClient(gw.url, '2025-03-26');
      const pending = c.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'elicit', arguments: { text: 'Who?' } },
      });
      const q = await until(() => gw.g.questions().find((x) => x.method === 'elicitation/create'), {
        what: 'the question at the broker',
      });
      assert.equal(gw.g.answer(q.id, { action: 'accept', content: { answer: 'nobody' } }), undefined);
      const r = await pending;
      assert.match(textOf(r.response!), /nobody/);
      assert.equal(c.seen.filter((f) => f.method === 'elicitation/create').length, 0);
    } finally {
      await gw.close();
    }
  });
});

describe('URL-mode elicitation', () => {
  for (const upstreamRev of ['2025-11-25', '2026-07-28'] as Revision[]) {
    test(`${upstreamRev} upstream: to a 2025-11-25 client that declared url mode, with an elicitationId; never to one that declared only form`, async () => {
      const gw = await gatewayFor(
        { up: fixtureCommand(['--rev', upstreamRev, '--name', 'up']) },
        {},
        {},
        { questionTtlMs: 400 },
      );
      try {
        const url = new HttpPeer('2025-11-25', gw.url);
        url.answer = () => ({ action: 'accept' });
        await url.initialize({ elicitation: { url: {} } });
        const r = await url.request('tools/call', {
          name: 'mcpx_call',
          arguments: { server: 'up', tool: 'elicit_url', arguments: { text: 'Connect your account' } },
        });
        assert.match(textOf(r), /"action":"accept"/);
        const q = url.frames.find((f) => f.method === 'elicitation/create')!.params as Json;
        assert.equal(q.mode, 'url');
        assert.equal(q.url, 'https://auth.example/connect?state=fixture');
        assert.match(
          String(q.elicitationId),
          upstreamRev === '2026-07-28' ? /^mcpx-[0-9a-f-]{36}$/ : /^fx-/,
          'supplied where the upstream gave none',
        );
        // The upstream's word that the step is done reaches the client it asked, by the same id (a
        // 2026-07-28 upstream has no such notification).
        assert.deepEqual(
          url.frames
            .filter((f) => f.method === 'notifications/elicitation/complete')
            .map((f) => (f.params as Json).elicitationId),
          upstreamRev === '2026-07-28' ? [] : [q.elicitationId],
        );
        assert.deepEqual(url.problems, []);
        const form = new HttpPeer('2025-11-25', gw.url);
        form.answer = () => ({ action: 'accept' });
        await form.initialize({ elicitation: { form: {} } });
        const r2 = await form.request('tools/call', {
          name: 'mcpx_call',
          arguments: { server: 'up', tool: 'elicit_url', arguments: {} },
        });
        assert.match(textOf(r2), /"action":"cancel"/, 'held by the broker until it expired');
        assert.equal(form.frames.filter((f) => f.method === 'elicitation/create').length, 0);
      } finally {
        await gw.close();
      }
    });
  }
});

describe('no question ever reaches a client that did not declare the capability', () => {
  test('across client eras and upstream eras, every kind of question', async () => {
    const gw = await gatewayFor(
      {
        legacy: fixtureCommand(['--rev', '2025-11-25', '--name', 'legacy']),
        modern: fixtureCommand(['--rev', '2026-07-28', '--name', 'modern']),
      },
      {},
      { roots: ['/configured/root'] },
      { questionTtlMs: 250 },
    );
    try {
      const tools = ['elicit', 'elicit_url', 'sample', 'roots'];
      for (const clientRev of ['2025-06-18', '2025-11-25'] as Revision[]) {
        const peer = new HttpPeer(clientRev, gw.url);
        await peer.initialize({});
        for (const server of ['legacy', 'modern']) {
          for (const tool of tools) {
            const r = await peer.request('tools/call', {
              name: 'mcpx_call',
              arguments: { server, tool, arguments: {} },
            });
            if (tool === 'roots' && server === 'legacy')
              assert.match(textOf(r), /configured\/root/, "mcpx's own roots");
            if (tool.startsWith('elicit')) assert.match(textOf(r), /"action":"cancel"/);
          }
        }
        assert.deepEqual(
          peer.frames.filter((f) => typeof f.method === 'string' && 'id' in f),
          [],
          `${clientRev}: no request was sent`,
        );
        assert.deepEqual(peer.problems, []);
      }
      const modern = new HttpClient(gw.url, '2026-07-28', { capabilities: {} });
      for (const server of ['legacy', 'modern']) {
        for (const tool of tools) {
          const r = await modern.request('tools/call', {
            name: 'mcpx_call',
            arguments: { server, tool, arguments: {} },
          });
          assert.notEqual(
            r.result?.resultType,
            'input_required',
            `${server}/${tool}: never input_required to a client that declared nothing`,
          );
        }
      }
    } finally {
      await gw.close();
    }
  });
});

describe('the host port: the person answers what the calling client cannot', () => {
  test('a client that declared nothing: the question goes to the person (named), not the broker', async () => {
    const { Gateway } = await import('../../src/gateway/gateway');
    const { parseConfig } = await import('../../src/config/file');
    const { Settings } = await import('../../src/config/settings');
    const { listen } = await import('../../src/app/app');
    const seen: Json[] = [];
    const g = new Gateway(
      parseConfig({ servers: { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) } }, 't', {
        env: process.env,
      }),
      new Settings(),
      {
        person: {
          can: (method) => method === 'elicitation/create',
          ask: async (q) => {
            seen.push(q as unknown as Json);
            return { action: 'accept', content: { answer: 'from the person' } };
          },
        },
      },
    );
    const l = await listen({ provider: g, settings: new Settings(), port: 0, address: '127.0.0.1' });
    try {
      const peer = new HttpPeer('2025-11-25', l.endpoint);
      await peer.initialize({});
      const r = await peer.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'elicit', arguments: { text: 'Who?' } },
      });
      assert.match(textOf(r), /from the person/);
      assert.equal(seen.length, 1);
      assert.equal((seen[0]!.params as Json).message, 'up (via mcpx) asks: Who?');
      assert.equal(g.questions().length, 0);
    } finally {
      await l.close();
      await g.close();
    }
  });
});
