// src/kit/: the bounded per-identity store under background calls, tasks and the broker, and the deadline
// wheel (on mocked timers: no timed assertions).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DeadlineWheel } from '../../src/kit/deadlines';
import { BoundedStore } from '../../src/kit/store';

const refuse = {
  perIdentity: (n: number, v: unknown) => new Error(`perIdentity ${n} ${String(v)}`),
  total: (n: number, v: unknown) => new Error(`total ${n} ${String(v)}`),
  held: (n: number, v: unknown) => new Error(`held ${n} ${String(v)}`),
};

describe('BoundedStore', () => {
  test('refuses at each bound, in order held, total, per identity, naming the value; evicts nothing for it', () => {
    const store = new BoundedStore<string>({ bounds: () => ({ perIdentity: 2, total: 3, held: 4 }), refuse });
    store.add('1', 'a', 'one');
    store.add('2', 'a', 'two');
    assert.throws(() => store.add('3', 'a', 'three'), /^Error: perIdentity 2 three$/);
    store.add('3', 'b', 'three');
    assert.throws(() => store.add('4', 'c', 'four'), /^Error: total 3 four$/);
    // An entry that stops counting frees its identity's and the total bound, not the held one.
    store.uncount('1');
    assert.equal(store.countOf('a'), 1);
    store.add('4', 'a', 'four');
    assert.throws(() => store.add('5', 'c', 'five'), /^Error: held 4 five$/);
    assert.deepEqual(store.values(), ['one', 'two', 'three', 'four']);
    assert.equal(store.delete('2'), 'two');
    assert.equal(store.delete('2'), undefined);
    assert.equal(store.countOf('a'), 1, 'a deleted entry is no longer counted');
    assert.deepEqual(store.close(), ['one', 'three', 'four']);
    assert.equal(store.size, 0);
  });

  test('a sweep removes what its owner calls stale and tells the owner; the rest stays counted', () => {
    const swept: number[] = [];
    const store = new BoundedStore<number>({
      bounds: () => ({ perIdentity: 10, total: 10 }),
      refuse,
      sweep: { everyMs: 60_000, stale: (v, now) => v < now, swept: (v) => swept.push(v) },
    });
    try {
      for (const v of [5, 15, 25]) store.add(String(v), 'a', v);
      store.sweep(20);
      assert.deepEqual(swept, [5, 15]);
      assert.deepEqual(store.values(), [25]);
      assert.equal(store.countOf('a'), 1);
    } finally {
      store.close();
    }
  });
});

describe('DeadlineWheel', () => {
  test('one timer for every deadline: each fires once at or after its time, in order; a cancelled one never', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
    const wheel = new DeadlineWheel(20);
    const fired: Array<[string, number]> = [];
    const at = (name: string, ms: number) => wheel.after(ms, () => fired.push([name, Date.now() - 1_000_000]));
    at('b', 100);
    at('a', 30);
    const c = at('c', 60);
    at('d', 100);
    c.cancel();
    c.cancel();
    assert.equal(wheel.pending, 3);
    t.mock.timers.tick(39);
    assert.deepEqual(fired, [], 'nothing early: 30 ms rounds up to the 40 ms slot');
    t.mock.timers.tick(1);
    assert.deepEqual(fired, [['a', 40]]);
    t.mock.timers.tick(59);
    assert.equal(fired.length, 1);
    t.mock.timers.tick(1);
    assert.deepEqual(fired, [
      ['a', 40],
      ['b', 100],
      ['d', 100],
    ]);
    assert.equal(wheel.pending, 0);
    // A deadline added after the wheel went idle arms it again; an earlier one re-arms it sooner.
    at('e', 200);
    at('f', 20);
    t.mock.timers.tick(20);
    assert.deepEqual(fired.at(-1), ['f', 120]);
    t.mock.timers.tick(179);
    assert.equal(fired.length, 4);
    t.mock.timers.tick(1);
    assert.deepEqual(fired.at(-1), ['e', 300]);
  });
});
