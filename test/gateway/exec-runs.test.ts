// A script run is one caller for questions (src/gateway/exec/runs.ts, src/gateway/call/inFlight.ts `owner`;
// docs/exec.md "Questions"), on the real Calls over a pool that holds each request until told: which
// call a question arriving on the connection belongs to, with runs, other calls, and a run that ended.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Settings } from '../../src/config/settings';
import { Calls } from '../../src/gateway/call/inFlight';
import { Run, RunContext } from '../../src/gateway/exec/runs';
import type { CallContext } from '../../src/server/provider';
import type { Pool } from '../../src/upstream/pool';

/** A pool whose requests wait until `release()`; it counts them as the real one does. */
function holdingPool() {
  const waiting: Array<() => void> = [];
  const pool = {
    def: (name: string) => ({ name }),
    scopeOf: () => 'shared',
    request: () =>
      new Promise<Record<string, unknown>>((resolve) => {
        const done = () => {
          waiting.splice(waiting.indexOf(done), 1);
          resolve({});
        };
        waiting.push(done);
      }),
    inflightOn: () => waiting.length,
  };
  return {
    pool: pool as unknown as Pool,
    release: () => {
      for (const f of [...waiting]) f();
    },
  };
}

const caller = (identity = 'agent'): CallContext => ({
  rev: '2025-11-25',
  signal: new AbortController().signal,
  identity,
  clientCapabilities: { elicitation: {} },
  meta: {},
  progress: () => undefined,
  log: () => undefined,
  ask: async () => ({ action: 'accept' }),
});

function setup() {
  const { pool, release } = holdingPool();
  const calls = new Calls({ pool, settings: new Settings(), passthrough: [], ask: async () => ({}) });
  const start = (ctx: CallContext) =>
    void calls.request({ server: 'up', ctx, method: 'tools/call', params: { name: 't' } }).catch(() => undefined);
  const owner = () => calls.owner('up', 'shared', 'elicitation/create', { message: 'q', requestedSchema: {} });
  return { calls, start, owner, release };
}

const runCtx = (c: CallContext) => new RunContext(new Run(c.identity, 'agent'), c, 8);

test("a run's parallel calls, alone on the connection, own its question: the run's caller answers", async () => {
  const { start, owner, release } = setup();
  const c = caller();
  const r = runCtx(c);
  start(r);
  start(r);
  const o = owner();
  assert.equal(o.owner, r, 'the run');
  assert.equal(o.owner?.identity, c.identity);
  release();
});

test('a run beside another call, or beside another run of the same client: nobody owns it (the broker)', async () => {
  for (const other of [caller(), runCtx(caller())]) {
    const { start, owner, release } = setup();
    start(runCtx(caller()));
    start(other);
    const o = owner();
    assert.equal(o.owner, undefined);
    assert.equal(o.unowned, 'a script run shares the connection with other calls');
    release();
  }
});

test("once a run has ended, its calls still in flight own nothing: a straggler's question goes to the broker", async () => {
  const { start, owner, release } = setup();
  const r = runCtx(caller());
  start(r);
  assert.equal(owner().owner, r);
  r.run.stop('the script run ended');
  const o = owner();
  assert.equal(o.owner, undefined);
  assert.equal(o.unowned, 'a call of a script run that has ended');
  release();
});

test('a run counts its questions together: past proto.askRounds the run is stopped and the question refused', async () => {
  const c = caller();
  const r = new RunContext(new Run(c.identity, undefined), c, 2);
  const s = new AbortController().signal;
  await r.ask!('elicitation/create', {}, s);
  await r.ask!('elicitation/create', {}, s);
  await assert.rejects(r.ask!('elicitation/create', {}, s), /more than 2 questions \(proto\.askRounds\); abandoned/);
  assert.equal(r.run.ended, true);
  assert.equal(r.signal.aborted, true, 'its requests in flight end with it');
});
