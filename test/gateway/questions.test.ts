// Questions relayed across eras (first part of the questions work): an upstream's elicitation, sampling
// and roots request reach a legacy calling client that declared exactly that capability — on stdio and
// in a Streamable HTTP session — and otherwise wait at the broker until answered or expired (cancel).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { HttpPeer } from '../fixtures/upstream/client';
import { repoRoot } from '../harness/gateway';
import type { Revision } from '../harness/schema';
import { killHostiles } from '../harness/hostile';
import { fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json, StdioClient } from '../harness/wire';
import { stays, until } from '../harness/wait';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-q-'));
after(() => {
  killAll();
  killHostiles();
  rmSync(dir, { recursive: true, force: true });
});

const ALL = { elicitation: {}, sampling: {}, roots: {} };
const answers = (req: Json): Json => {
  if (req.method === 'elicitation/create') return { action: 'accept', content: { answer: 'forty-two' } };
  if (req.method === 'sampling/createMessage')
    return { role: 'assistant', content: { type: 'text', text: 'sampled!' }, model: 'test-model' };
  return { roots: [{ uri: 'file:///client/root', name: 'client root' }] };
};
const textOf = (r: Json) =>
  String(((((r.result as Json)?.content as Json[]) ?? [])[0] as Json)?.text ?? JSON.stringify(r.error));

for (const upstreamRev of ['2025-11-25', '2026-07-28'] as Revision[]) {
  describe(`a legacy HTTP session client, ${upstreamRev} upstream`, () => {
    for (const clientRev of ['2025-06-18', '2025-11-25'] as Revision[]) {
      test(`${clientRev} client: elicitation and sampling go to the calling client, named, with negative ids`, async () => {
        const gw = await gatewayFor({ up: fixtureCommand(['--rev', upstreamRev, '--name', 'up']) });
        try {
          const peer = new HttpPeer(clientRev, gw.url);
          peer.answer = answers;
          await peer.initialize(ALL);
          const call = (tool: string, text?: string) =>
            peer.request('tools/call', {
              name: 'mcpx_call',
              arguments: { server: 'up', tool, arguments: text ? { text } : {} },
            });
          const e = await call('elicit', 'Which number?');
          assert.match(textOf(e), /"action":"accept".*forty-two/);
          const s = await call('sample', 'Say hi');
          assert.match(textOf(s), /sampled!/);
          const asked = peer.frames.filter((f) => typeof f.method === 'string' && 'id' in f);
          assert.deepEqual(
            asked.map((f) => f.method),
            ['elicitation/create', 'sampling/createMessage'],
          );
          assert.ok(
            asked.every((f) => (f.id as number) < 0),
            'server-sent ids are negative',
          );
          assert.equal((asked[0]!.params as Json).message, 'up (via mcpx) asks: Which number?');
          if (upstreamRev !== '2026-07-28') {
            const r = await call('roots');
            assert.match(textOf(r), /client\/root/, 'roots: the client that declared roots is asked');
          }
          assert.deepEqual(peer.problems, [], 'every frame valid for the client revision');
        } finally {
          await gw.close();
        }
      });
    }
  });
}

describe('declaring one is not declaring the other; the broker takes the rest', () => {
  test('a client that declared only sampling is never sent an elicitation; the broker holds it until answered', async () => {
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) },
      {},
      {},
      { questionTtlMs: 5000 },
    );
    try {
      const peer = new HttpPeer('2025-11-25', gw.url);
      peer.answer = answers;
      await peer.initialize({ sampling: {} });
      const pending = peer.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'elicit', arguments: { text: 'Secret?' } },
      });
      const q = await until(() => (gw.g.questions().length > 0 ? gw.g.questions() : undefined), {
        what: 'a question at the broker',
      });
      assert.equal(q.length, 1);
      assert.equal(q[0]!.method, 'elicitation/create');
      assert.equal(q[0]!.reason, 'the calling client cannot take it');
      // An invalid answer is refused to the answerer with the reason, not forwarded.
      assert.match(
        gw.g.answer(q[0]!.id, { action: 'accept', content: { answer: 7 } })!,
        /does not match the requested schema/,
      );
      assert.equal(gw.g.answer(q[0]!.id, { action: 'accept', content: { answer: 'seven' } }), undefined);
      assert.match(textOf(await pending), /seven/);
      assert.equal(peer.frames.filter((f) => f.method === 'elicitation/create').length, 0, 'never sent to this client');
    } finally {
      await gw.close();
    }
  });

  test('a question nobody answers expires as cancel, never decline', async () => {
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) },
      {},
      {},
      { questionTtlMs: 300 },
    );
    try {
      const peer = new HttpPeer('2025-11-25', gw.url);
      await peer.initialize({});
      const r = await peer.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'elicit', arguments: {} },
      });
      assert.match(textOf(r), /"action":"cancel"/);
      assert.equal(gw.g.questions().length, 0);
    } finally {
      await gw.close();
    }
  });

  test('pool.callTimeout does not run while a question is pending', async () => {
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) },
      // The call's own steps (asking, answering) well within it on a loaded machine; the person's wait past it.
      { 'pool.callTimeout': '1s' },
    );
    try {
      const peer = new HttpPeer('2025-11-25', gw.url);
      let ended = false;
      peer.answer = async (req: Json) => {
        // The person takes longer than the call timeout to answer: the call stays open all that time.
        await stays(() => !ended, { for: 1500, what: 'the call open while its question is pending' });
        return answers(req);
      };
      await peer.initialize(ALL);
      const r = await peer
        .request('tools/call', {
          name: 'mcpx_call',
          arguments: { server: 'up', tool: 'elicit', arguments: {} },
        })
        .finally(() => (ended = true));
      assert.match(textOf(r), /forty-two/, 'a person may take longer than the call timeout to answer');
    } finally {
      await gw.close();
    }
  });
});

describe('a legacy stdio client (mcpx serve)', () => {
  test('the question goes down the pipe while the call is open, and the answer comes back up', async () => {
    const config = join(dir, 'serve.json');
    writeFileSync(config, JSON.stringify({ servers: { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) } }));
    const c = new StdioClient(
      process.execPath,
      [join(repoRoot(), 'dist', 'cli.js'), 'serve', '--transport', 'stdio', '--standalone', '--config', config],
      '2025-11-25',
      ALL,
    );
    try {
      c.answer = answers;
      await c.initialize();
      const r = await c.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'elicit', arguments: { text: 'Name?' } },
      });
      assert.match(textOf(r), /forty-two/);
      const q = c.frames.find((f) => f.method === 'elicitation/create')!;
      assert.ok((q.id as number) < 0);
      assert.equal((q.params as Json).message, 'up (via mcpx) asks: Name?');
    } finally {
      await c.close();
    }
  });
});

for (const upstreamRev of ['2025-11-25', '2026-07-28'] as Revision[]) {
  describe(`a 2026-07-28 client, ${upstreamRev} upstream: input_required and the retry`, () => {
    test('elicitation and sampling come back as inputRequests; the retry carries the answers upstream', async () => {
      const gw = await gatewayFor({ up: fixtureCommand(['--rev', upstreamRev, '--name', 'up']) });
      try {
        const c = new HttpClient(gw.url, '2026-07-28', { capabilities: { elicitation: {}, sampling: {} } });
        for (const tool of ['elicit', 'sample']) {
          const args = { name: 'mcpx_call', arguments: { server: 'up', tool, arguments: { text: 'Q?' } } };
          const r1 = (await c.request('tools/call', args)).result!;
          assert.equal(r1.resultType, 'input_required', tool);
          const [key, q] = Object.entries(r1.inputRequests as Record<string, Json>)[0]!;
          assert.equal(q.method, tool === 'elicit' ? 'elicitation/create' : 'sampling/createMessage');
          if (tool === 'elicit') assert.equal((q.params as Json).message, 'up (via mcpx) asks: Q?');
          const r2 = (
            await c.request('tools/call', {
              ...args,
              inputResponses: { [key]: answers(q) },
              requestState: r1.requestState,
            })
          ).result!;
          assert.equal(r2.resultType, 'complete');
          assert.match(textOf({ result: r2 }), tool === 'elicit' ? /forty-two/ : /sampled!/);
        }
      } finally {
        await gw.close();
      }
    });
  });
}

describe('headless: mcpx elicit answers what waits at the broker, through /v1', () => {
  test('list, refuse an invalid answer, accept a valid one; stored owner-only and pruned', async () => {
    const { execFile } = await import('node:child_process');
    const { statSync, readdirSync } = await import('node:fs');
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) },
      {},
      {},
      // Long enough for four CLI processes on a loaded machine: the question must still wait when answered.
      { questionTtlMs: 60_000 },
    );
    const cli = (...args: string[]) =>
      new Promise<{ code: number; out: string; err: string }>((resolve) =>
        execFile(
          process.execPath,
          [join(repoRoot(), 'dist', 'cli.js'), 'elicit', ...args, '--endpoint', gw.url],
          (e, out, err) => resolve({ code: e ? 1 : 0, out, err }),
        ),
      );
    try {
      const peer = new HttpPeer('2025-11-25', gw.url);
      await peer.initialize({});
      const pending = peer.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'elicit', arguments: { text: 'Your name?' } },
      });
      let listed = await cli();
      for (let i = 0; !/elicitation\/create/.test(listed.out) && i < 100; i++) listed = await cli();
      assert.match(listed.out, /up {2}elicitation\/create {2}up \(via mcpx\) asks: Your name\?/, listed.err);
      const id = listed.out.split(/\s+/)[0]!;
      const stored = join(gw.dir, 'questions', `${id}.json`);
      assert.equal(statSync(stored).mode & 0o777, 0o600, 'owner-only');
      const bad = await cli('answer', id, '{"action":"accept","content":{"answer":1}}');
      assert.equal(bad.code, 1);
      assert.match(bad.err, /does not match the requested schema/);
      const ok = await cli('answer', id, '{"action":"accept","content":{"answer":"Ada"}}');
      assert.equal(ok.code, 0, ok.err);
      assert.match(textOf(await pending), /Ada/);
      assert.deepEqual(readdirSync(join(gw.dir, 'questions')), [], 'pruned once answered');
    } finally {
      await gw.close();
    }
  });
});
