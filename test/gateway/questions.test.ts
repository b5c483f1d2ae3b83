// Questions relayed across eras (first part of the questions work): an upstream's elicitation, sampling
// and roots request reach a legacy calling client that declared exactly that capability — on stdio and
// in a Streamable HTTP session — and otherwise wait at the broker until answered or expired (cancel).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { answerProblem } from '../../src/gateway/inbox/broker';
import { HttpPeer } from '../fixtures/upstream/client';
import { repoRoot } from '../harness/gateway';
import type { Revision } from '../harness/schema';
import { hostile, killHostiles, until } from '../harness/hostile';
import { checkRecorded, fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json, StdioClient } from '../harness/wire';

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
      let q = gw.g.questions();
      for (let i = 0; q.length === 0 && i < 100; i++) {
        await new Promise((r) => setTimeout(r, 20));
        q = gw.g.questions();
      }
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
      { 'pool.callTimeout': '300ms' },
    );
    try {
      const peer = new HttpPeer('2025-11-25', gw.url);
      peer.answer = async (req: Json) => {
        await new Promise((r) => setTimeout(r, 700));
        return answers(req);
      };
      await peer.initialize(ALL);
      const r = await peer.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'elicit', arguments: {} },
      });
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

describe('answers the client gets wrong, or never gives', () => {
  test('an invalid answer is refused with the reason and asked again; it never reaches the upstream', async () => {
    const gw = await gatewayFor({ up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) });
    try {
      const peer = new HttpPeer('2025-11-25', gw.url);
      let n = 0;
      peer.answer = () =>
        ++n === 1 ? { action: 'accept', content: { answer: 12 } } : { action: 'accept', content: { answer: 'twelve' } };
      await peer.initialize(ALL);
      const r = await peer.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'elicit', arguments: { text: 'N?' } },
      });
      assert.match(textOf(r), /twelve/);
      assert.doesNotMatch(textOf(r), /12/);
      const asked = peer.frames
        .filter((f) => f.method === 'elicitation/create')
        .map((f) => String((f.params as Json).message));
      assert.equal(asked.length, 2);
      assert.match(
        asked[1]!,
        /^Your answer was not accepted \(the answer does not match the requested schema: \/answer must be string\)\. up \(via mcpx\) asks: N\?$/,
      );
    } finally {
      await gw.close();
    }
  });

  test('a client that does not answer within proto.askTimeout: the question is withdrawn and the upstream gets cancel', async () => {
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) },
      { 'proto.askTimeout': '300ms' },
    );
    try {
      const peer = new HttpPeer('2025-11-25', gw.url);
      peer.answer = () => new Promise(() => undefined); // never answers
      await peer.initialize(ALL);
      const r = await peer.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'elicit', arguments: {} },
      });
      assert.match(textOf(r), /"action":"cancel"/);
      const q = peer.frames.find((f) => f.method === 'elicitation/create')!;
      const withdrawn = peer.frames.find((f) => f.method === 'notifications/cancelled')!;
      assert.equal((withdrawn.params as Json).requestId, q.id, 'the question is withdrawn from the client');
    } finally {
      await gw.close();
    }
  });

  test('2026-07-28: an invalid inputResponse is asked again with the reason', async () => {
    const gw = await gatewayFor({ up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) });
    try {
      const c = new HttpClient(gw.url, '2026-07-28', { capabilities: { elicitation: {} } });
      const args = { name: 'mcpx_call', arguments: { server: 'up', tool: 'elicit', arguments: { text: 'N?' } } };
      const r1 = (await c.request('tools/call', args)).result!;
      const [k1] = Object.keys(r1.inputRequests as Json);
      const r2 = (
        await c.request('tools/call', {
          ...args,
          inputResponses: { [k1!]: { action: 'accept', content: {} } },
          requestState: r1.requestState,
        })
      ).result!;
      assert.equal(r2.resultType, 'input_required');
      const [q2] = Object.values(r2.inputRequests as Record<string, Json>);
      assert.match(
        String((q2!.params as Json).message),
        /^Your answer was not accepted \(.*must have required property 'answer'\)/,
      );
    } finally {
      await gw.close();
    }
  });
});

describe('sampling answers are checked like any other answer (role, content, model, within maxTokens)', () => {
  test('answerProblem: what a CreateMessageResult must hold', () => {
    const ok = { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' };
    const p = { messages: [], maxTokens: 4 };
    assert.equal(answerProblem('sampling/createMessage', p, ok), undefined);
    assert.equal(answerProblem('sampling/createMessage', p, { ...ok, content: [ok.content, ok.content] }), undefined);
    assert.match(String(answerProblem('sampling/createMessage', p, { ...ok, role: undefined })), /role/);
    assert.match(String(answerProblem('sampling/createMessage', p, { ...ok, role: 'system' })), /role/);
    assert.match(String(answerProblem('sampling/createMessage', p, { ...ok, content: undefined })), /content/);
    assert.match(String(answerProblem('sampling/createMessage', p, { ...ok, content: [] })), /content/);
    assert.match(String(answerProblem('sampling/createMessage', p, { ...ok, content: [{ text: 'x' }] })), /content/);
    assert.match(String(answerProblem('sampling/createMessage', p, { ...ok, model: undefined })), /model/);
    const long = { ...ok, content: { type: 'text', text: 'x'.repeat(4 * 128 + 1) } };
    assert.match(String(answerProblem('sampling/createMessage', p, long)), /cannot be within maxTokens \(4\)/);
  });

  for (const upstreamRev of ['2025-11-25', '2026-07-28'] as Revision[]) {
    test(`${upstreamRev} upstream: a calling client's answer past maxTokens never reaches it; the broker refuses one without a role and takes a valid one`, async () => {
      const gw = await gatewayFor(
        { up: fixtureCommand(['--rev', upstreamRev, '--name', 'up']) },
        {},
        {},
        { questionTtlMs: 60_000 },
      );
      try {
        const peer = new HttpPeer('2025-11-25', gw.url);
        // The fixture asks with maxTokens 64: 64 × 128 bytes cannot hold this.
        peer.answer = () => ({ role: 'assistant', content: { type: 'text', text: 'flood '.repeat(2000) }, model: 'm' });
        await peer.initialize({ sampling: {} });
        const pending = peer.request('tools/call', {
          name: 'mcpx_call',
          arguments: { server: 'up', tool: 'sample', arguments: { text: 'Say hi' } },
        });
        const v1 = (path: string, init: RequestInit = {}) =>
          fetch(new URL(path, gw.bare), {
            ...init,
            headers: { Authorization: `Bearer ${gw.secret}`, 'Content-Type': 'application/json' },
          });
        let q: Json | undefined;
        for (let i = 0; !q && i < 250; i++) {
          const { questions } = (await (await v1('/v1/questions')).json()) as { questions: Json[] };
          q = questions.find((x) => x.method === 'sampling/createMessage');
          if (!q) await new Promise((r) => setTimeout(r, 20));
        }
        assert.ok(q, 'the question went on to the broker');
        assert.match(
          String(q.reason),
          /the calling client's answer was refused \(the answer's \d+ bytes of text cannot be within maxTokens \(64\)\)/,
        );
        const answer = (body: Json) => v1(`/v1/questions/${q!.id}`, { method: 'POST', body: JSON.stringify(body) });
        const noRole = await answer({ content: { type: 'text', text: 'hi' }, model: 'm' });
        assert.equal(noRole.status, 400);
        assert.match(String(((await noRole.json()) as Json).error), /role must be/);
        assert.equal(
          (await answer({ role: 'assistant', content: { type: 'text', text: 'from the broker' }, model: 'm' })).status,
          200,
        );
        const r = await pending;
        assert.match(textOf(r), /from the broker/);
        assert.doesNotMatch(textOf(r), /flood/);
      } finally {
        await gw.close();
      }
    });
  }
});

describe('before initialized (docs/protocol.md "Before initialized")', () => {
  test('a client that has not sent notifications/initialized is asked nothing (its question goes to the broker), but hears its call’s progress', async () => {
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) },
      {},
      {},
      { questionTtlMs: 500 },
    );
    try {
      const peer = new HttpPeer('2025-11-25', gw.url);
      peer.answer = answers;
      const init = await peer.raw('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: ALL,
        clientInfo: { name: 't', version: '1' },
      });
      assert.ok('result' in init);
      const call = (tool: string, args: Json, meta: Json = {}) =>
        peer.request('tools/call', { name: 'mcpx_call', arguments: { server: 'up', tool, arguments: args } }, meta);
      // A request to the client (elicitation) is held back: the broker's expiry answers cancel.
      const early = await call('elicit', { text: 'Too soon?' });
      assert.match(textOf(early), /"action":"cancel"/);
      assert.equal(peer.frames.filter((f) => f.method === 'elicitation/create').length, 0, 'not asked');
      // Notifications are not requests: its own call's progress reaches it.
      await call('slow', { ms: 50, steps: 2 }, { progressToken: 'early' });
      assert.ok(
        peer.frames.some((f) => f.method === 'notifications/progress'),
        'progress before initialized',
      );
      await peer.notify('notifications/initialized');
      const later = await call('elicit', { text: 'Now?' });
      assert.match(textOf(later), /forty-two/);
      assert.equal(peer.frames.filter((f) => f.method === 'elicitation/create').length, 1);
      assert.deepEqual(peer.problems, []);
    } finally {
      await gw.close();
    }
  });
});

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
      const q = await until('the question at the broker', () =>
        gw.g.questions().find((x) => x.method === 'elicitation/create'),
      );
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
      const q = await until('the question at the broker', () =>
        gw.g.questions().find((x) => x.method === 'elicitation/create'),
      );
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

describe('a declined sampling to a 2026-07-28 upstream (docs/protocol.md "A declined sampling to a 2026-07-28 upstream")', () => {
  test('the client refuses with an error: the call fails with it, and the upstream gets no retry', async () => {
    const record = join(dir, 'declined-sampling.jsonl');
    const gw = await gatewayFor({
      up: fixtureCommand(['--rev', '2026-07-28', '--name', 'up', '--record', record]),
    });
    try {
      const peer = new HttpPeer('2025-11-25', gw.url);
      // The person said no: the client answers the sampling request with an error (2025-11-25
      // client/sampling "Error Handling"), which MRTR has no way to carry.
      const write = (peer as unknown as { write(f: Json): Promise<void> }).write.bind(peer);
      peer.answer = (req) => {
        void write({ jsonrpc: '2.0', id: req.id, error: { code: -1, message: 'User rejected sampling request' } });
        return new Promise<Json>(() => undefined);
      };
      await peer.initialize({ sampling: {} });
      const r = await peer.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'sample', arguments: { text: 'write a haiku' } },
      });
      assert.match(textOf(r), /User rejected sampling request/);
      assert.equal(peer.frames.filter((f) => f.method === 'sampling/createMessage').length, 1);
      const calls = checkRecorded(record, '2026-07-28').filter((f) => f.method === 'tools/call');
      assert.equal(calls.length, 1, 'the upstream saw the first round only: no retry carries the refusal');
      assert.equal('inputResponses' in (calls[0]!.params as Json), false);
    } finally {
      await gw.close();
    }
  });
});
