// Answers to relayed questions (docs/questions.md): an answer a client gets wrong or never gives, sampling
// answers checked like any other (role, content, model, within maxTokens) before the upstream sees them, a
// client not yet initialized asked nothing, and a declined sampling to a 2026-07-28 upstream.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { answerProblem } from '../../src/gateway/inbox/broker';
import { HttpPeer } from '../fixtures/upstream/client';
import type { Revision } from '../harness/schema';
import { checkRecorded, fixtureCommand, gatewayFor } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { until } from '../harness/wait';
import { dir, ALL, answers, textOf } from './questionsKit';

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
        const q = await until(
          async () => {
            const { questions } = (await (await v1('/v1/questions')).json()) as { questions: Json[] };
            return questions.find((x) => x.method === 'sampling/createMessage');
          },
          { what: 'the question at the broker' },
        );
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
