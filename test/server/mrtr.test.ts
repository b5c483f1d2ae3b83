// 2026-07-28 multi round-trip requests through the server core: input_required with a signed
// requestState, the call running on in the background, retries resuming it, every way a state can be
// wrong (each with its own message), the round bound, and held responses.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Listening } from '../../src/app/app';
import { Settings } from '../../src/config/settings';
import type { JsonObject } from '../../src/protocol/jsonrpc';
import { MODERN } from '../../src/protocol/revisions';
import { ServerCall, type Services } from '../../src/server/call';
import { Conn } from '../../src/server/conn';
import { BackgroundCall, BackgroundCalls } from '../../src/server/mrtr';
import { askInBackground } from '../../src/server/questions';
import { Rounds } from '../../src/server/rounds';
import { Abort } from '../../src/wire/abort';
import { startTestServer } from '../harness/gateway';
import { HttpClient, type Json } from '../harness/wire';
import { turn, until } from '../harness/wait';

let gw: Listening;
before(async () => {
  gw = await startTestServer({ 'proto.askRounds': 3 });
});
after(() => gw.close());

const asker = () => new HttpClient(gw.url, '2026-07-28', { capabilities: { elicitation: {} } });
const ask = (c: HttpClient, times: number, extra: Json = {}) =>
  c.request('tools/call', { name: 'ask', arguments: { times }, ...extra });

describe('MRTR (2026-07-28)', () => {
  test('a question comes back as input_required; the retry with inputResponses and requestState resumes the call', async () => {
    const c = asker();
    const r1 = (await ask(c, 2)).result!;
    assert.equal(r1.resultType, 'input_required');
    assert.equal('ttlMs' in r1, false, 'an interim result carries no cache hints');
    const reqs = r1.inputRequests as Record<string, Json>;
    const [k1] = Object.keys(reqs);
    assert.deepEqual(reqs[k1!], {
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: 'question 1',
        requestedSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      },
    });
    const r2 = (
      await ask(c, 2, {
        inputResponses: { [k1!]: { action: 'accept', content: { n: 1 } } },
        requestState: r1.requestState,
      })
    ).result!;
    assert.equal(r2.resultType, 'input_required');
    const [k2] = Object.keys(r2.inputRequests as Json);
    assert.notEqual(k2, k1);
    const r3 = (await ask(c, 2, { inputResponses: { [k2!]: { action: 'decline' } }, requestState: r2.requestState }))
      .result!;
    assert.equal(r3.resultType, 'complete');
    assert.deepEqual(JSON.parse(String((r3.content as Json[])[0]!.text)), [
      { action: 'accept', content: { n: 1 } },
      { action: 'decline' },
    ]);
  });

  test('a missing key is asked again; keys that match nothing are ignored', async () => {
    const c = asker();
    const r1 = (await ask(c, 1)).result!;
    const again = (
      await ask(c, 1, {
        inputResponses: { nonsense: { action: 'accept', content: {} } },
        requestState: r1.requestState,
      })
    ).result!;
    assert.equal(again.resultType, 'input_required');
    assert.deepEqual(Object.keys(again.inputRequests as Json), Object.keys(r1.inputRequests as Json));
  });

  test('inputResponses sent up front are held and matched by key when the question is asked', async () => {
    const c = asker();
    const r = (await ask(c, 1, { inputResponses: { 'elicitation-1': { action: 'accept', content: { n: 9 } } } }))
      .result!;
    assert.equal(r.resultType, 'complete');
    assert.match(String((r.content as Json[])[0]!.text), /"n":9/);
  });

  test('a tampered, foreign or misplaced requestState is -32602, each with its own message', async () => {
    const c = asker();
    const r1 = (await ask(c, 1)).result!;
    const state = String(r1.requestState);
    const [body, mac] = state.split('.');
    const tampered = `${Buffer.from(Buffer.from(body!, 'base64url').toString().replace('"c":"', '"c":"x')).toString('base64url')}.${mac}`;
    const cases: Array<[Json, RegExp]> = [
      [{ requestState: tampered }, /failed verification/],
      [{ requestState: 'garbage' }, /not one mcpx issued/],
      [{ requestState: state, arguments: { times: 2 } }, /issued for a different request/],
    ];
    for (const [extra, why] of cases) {
      const r = await c.request('tools/call', { name: 'ask', arguments: { times: 1 }, ...extra });
      assert.equal(r.error?.code, -32602, String(why));
      assert.equal(r.reply.status, 400);
      assert.match(r.error!.message, why);
    }
  });

  test('an expired requestState (past proto.stateTTL) is -32602 naming the setting, and resumes nothing', async () => {
    const short = await startTestServer({ 'proto.stateTTL': '300ms' });
    try {
      const c = new HttpClient(short.url, '2026-07-28', { capabilities: { elicitation: {} } });
      const r1 = (await ask(c, 1)).result!;
      const [key] = Object.keys(r1.inputRequests as Json);
      // The state carries its expiry (`e`), at most proto.stateTTL away; the retry comes once it has passed.
      const issued = Date.now();
      const body = String(r1.requestState).split('.')[0]!;
      const { e } = JSON.parse(Buffer.from(body, 'base64url').toString()) as { e: number };
      assert.ok(e <= issued + 300, `expires within proto.stateTTL (${e - issued} ms)`);
      await until(() => Date.now() > e, { what: 'the requestState to expire' });
      const late = await ask(c, 1, {
        inputResponses: { [key!]: { action: 'accept', content: { answer: 'too late' } } },
        requestState: r1.requestState,
      });
      assert.equal(late.error?.code, -32602);
      assert.equal(late.reply.status, 400);
      assert.match(late.error!.message, /requestState expired at .* \(proto\.stateTTL\)/);
    } finally {
      await short.close();
    }
  });

  test('a call still asking after proto.askRounds is abandoned with an error naming the bound', async () => {
    const c = asker();
    let r = (await ask(c, 10)).result!;
    for (let i = 0; i < 2; i++) {
      const [k] = Object.keys(r.inputRequests as Json);
      r = (
        await ask(c, 10, {
          inputResponses: { [k!]: { action: 'accept', content: { n: i } } },
          requestState: r.requestState,
        })
      ).result!;
    }
    const [k] = Object.keys(r.inputRequests as Json);
    const last = await ask(c, 10, {
      inputResponses: { [k!]: { action: 'accept', content: { n: 3 } } },
      requestState: r.requestState,
    });
    assert.equal(last.error?.code, -32603);
    assert.match(last.error!.message, /after 3 rounds \(proto\.askRounds\)/);
    // The call is gone: its state resumes nothing now.
    const gone = await ask(c, 10, { requestState: r.requestState });
    assert.match(gone.error!.message, /is gone/);
  });

  test('a client that did not declare elicitation is never sent one in inputRequests', async () => {
    const c = new HttpClient(gw.url, '2026-07-28', { capabilities: { sampling: {} } });
    const r = (await ask(c, 1)).result!;
    assert.equal(r.resultType, 'input_required');
    assert.deepEqual(r.inputRequests, {});
    assert.equal(typeof r.requestState, 'string', 'at least one of inputRequests or requestState');
  });
});

describe('BackgroundCall', () => {
  test('everyone waiting for it to settle hears it: the round in progress and the first request clean-up', {
    timeout: 5000,
  }, async () => {
    const call = new BackgroundCall('tools/call');
    let finish!: (r: Json) => void;
    call.run(new Promise<Json>((resolve) => (finish = resolve)));
    const first = call.settle();
    const second = call.settle();
    const asked = call.ask('elicitation/create', {}, new AbortController().signal);
    assert.deepEqual(await first, { kind: 'ask' });
    assert.deepEqual(await second, { kind: 'ask' });
    call.deliver({ [Object.keys(call.inputRequests())[0]!]: { action: 'decline' } });
    await asked;
    const a = call.settle();
    const b = call.settle();
    finish({ content: [] });
    assert.deepEqual(await a, { kind: 'done', result: { content: [] } });
    assert.deepEqual(await b, { kind: 'done', result: { content: [] } });
  });
});

describe('cancelled retries and the sweeper', () => {
  const settings = new Settings([{ source: 'flag', values: {} }]);
  /** One request of the call, as the runner hands it to the server, from identity `who`. */
  const incoming = (params: JsonObject): ServerCall => {
    const call = new ServerCall(
      new Conn('http', 'test'),
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params },
      { rev: MODERN, request: new Abort(), relay: { emit: () => undefined }, services: { settings } as Services },
    );
    call.identity = 'who';
    return call;
  };
  /** One round of `call` as the background strategy runs it: a retry resumes the call its state names. */
  const round = async (rounds: Rounds, call: ServerCall, bg?: BackgroundCall) => {
    const binding = rounds.binding(call);
    const resumed = rounds.resume(call, binding);
    return rounds.round(call, resumed?.bg ?? bg!, binding, { claimed: resumed?.claimed });
  };

  test('a retry cancelled while the call runs leaves no waiter, and a state that delivered answers stays used', async () => {
    const rounds = new Rounds(settings);
    try {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const base = { name: 't', arguments: {} };
      const start = incoming(base);
      const call = rounds.begin(start);
      call.run(
        (async () => {
          await askInBackground(call, {
            rev: MODERN,
            method: 'elicitation/create',
            params: { message: 'm' },
            signal: call.abort.signal,
          });
          await gate;
          return { content: [] };
        })(),
      );
      const first = await round(rounds, start, call);
      assert.ok('result' in first);
      assert.equal(first.result.resultType, 'input_required');
      const key = Object.keys(call.inputRequests())[0]!;
      const retry = incoming({
        ...base,
        requestState: first.result.requestState,
        inputResponses: { [key]: { action: 'decline' } },
      });
      const pending = round(rounds, retry);
      await turn();
      assert.equal(call.waiting, 1, 'the retry waits for the running call');
      retry.request.abort(new Error('client closed the stream'));
      await assert.rejects(pending, /Request cancelled/);
      assert.equal(call.waiting, 0, 'the cancelled retry left no waiter behind');
      // Its answers were delivered: the same state cannot deliver them again.
      await assert.rejects(
        round(
          rounds,
          incoming({
            ...base,
            requestState: first.result.requestState,
            inputResponses: { [key]: { action: 'decline' } },
          }),
        ),
        /already used/,
      );
      release();
    } finally {
      rounds.close();
    }
  });

  test('the sweeper spares a call still running for its request; it ends one that asked and nobody waits on', async () => {
    const store = new BackgroundCalls(
      () => 1000,
      () => ({ perIdentity: 10, total: 10 }),
    );
    try {
      const running = new BackgroundCall('tools/call', 'running', 'a');
      const asked = new BackgroundCall('tools/call', 'asked', 'a');
      const waited = new BackgroundCall('tools/call', 'waited', 'a');
      const done = new BackgroundCall('tools/call', 'done', 'a');
      for (const c of [running, asked, waited, done]) store.add(c);
      asked.rounds = 1;
      waited.rounds = 1;
      waited.attached = 1;
      done.run(Promise.resolve({}));
      await turn();
      const later = Date.now() + 60_000;
      store.sweep(later);
      assert.equal(running.abort.aborted, false, 'a long call the client still waits for runs on');
      assert.ok(store.get(running.id));
      assert.equal(waited.abort.aborted, false, 'a call with a retry waiting runs on');
      assert.equal(asked.abort.aborted, true, 'a call that asked and nobody waits on is abandoned');
      assert.equal(store.get(asked.id), undefined);
      assert.equal(store.get(done.id), undefined, 'a finished result is kept only proto.askTTL');
    } finally {
      store.close();
    }
  });
});
