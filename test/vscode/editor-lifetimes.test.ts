// The editor's two lifetimes (src/vscode/lifetimes.ts): what a gateway run holds is disposed when the
// run ends — every feature that listens to a run's gateway and task stores is counted, and nothing of a
// run may be left registered after it (a leak is shown to be caught). Plain Node, the gateway a
// hand-written GatewayFacade (test/vscode-fakes/host.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ChatEndpoint } from '../../src/vscode/host/chatEndpoint';
import { relayRuns } from '../../src/vscode/host/runRelay';
import { Emitter, Lifetimes, disposable } from '../../src/vscode/lifetimes';
import type { GatewayRun } from '../../src/vscode/ports';
import { questionsTree, questionsView } from '../../src/vscode/views/questions';
import { UpstreamLogs } from '../../src/vscode/views/upstreamLogs';
import { fakeKit } from '../vscode-fakes/editor';
import { FakeGateway, fakeBackground, fakeHost, fakeTaskList } from '../vscode-fakes/host';

describe('Lifetimes', () => {
  test("a run's disposables go when it ends, newest first; the extension's stay until it is disposed", async () => {
    const life = new Lifetimes<string>();
    const gone: string[] = [];
    const d = (name: string) => disposable(() => gone.push(name));
    life.keep(d('command'));
    life.perRun((run) => [d(`${run}: first`), d(`${run}: second`)]);
    assert.deepEqual(life.counts(), { extension: 1, run: 0 });
    life.begin('run 1');
    assert.equal(life.run, 'run 1');
    assert.deepEqual(life.counts(), { extension: 1, run: 2 });
    assert.throws(() => life.begin('run 2'), /already under way/);
    // Started while a run is under way: it joins it at once.
    life.perRun((run) => [d(`${run}: late`)]);
    const held = life.forRun(d('held'));
    assert.deepEqual(life.counts(), { extension: 1, run: 4 });
    held!.dispose();
    assert.deepEqual(gone, ['held'], 'let go early, and disposed');
    await life.end();
    assert.deepEqual(gone, ['held', 'run 1: late', 'run 1: second', 'run 1: first']);
    assert.equal(life.run, undefined);
    assert.deepEqual(life.counts(), { extension: 1, run: 0 });
    // No run: what would be held for one is disposed at once.
    assert.equal(life.forRun(d('too late')), undefined);
    assert.equal(gone.at(-1), 'too late');
    life.begin('run 2');
    assert.deepEqual(life.counts(), { extension: 1, run: 3 }, 'each run gets its own');
    life.dispose();
    assert.deepEqual(gone.slice(-4), ['run 2: late', 'run 2: second', 'run 2: first', 'command']);
    assert.deepEqual(life.counts(), { extension: 0, run: 0 });
  });

  test('the end of a run waits for what closes asynchronously', async () => {
    const life = new Lifetimes<number>();
    let closed = false;
    life.begin(1);
    life.forRun(disposable(() => new Promise<void>((r) => setTimeout(() => r(void (closed = true)), 10))));
    await life.end();
    assert.equal(closed, true);
  });
});

/** What a run left registered on its gateway and task stores, and in the run lifetime. */
function leftBehind(
  life: Lifetimes<GatewayRun>,
  run: { g: FakeGateway; tasks: ReturnType<typeof fakeTaskList>; background: ReturnType<typeof fakeBackground> },
): string[] {
  return [
    ...(run.g.listening ? [`${run.g.listening} gateway event listener(s)`] : []),
    ...(run.tasks.watchers ? [`${run.tasks.watchers} task store watcher(s)`] : []),
    ...(run.background.onChange ? ['a background store onChange'] : []),
    ...(life.counts().run ? [`${life.counts().run} run disposable(s)`] : []),
  ];
}

const newRun = () => ({ g: new FakeGateway({ servers: [] }), tasks: fakeTaskList(), background: fakeBackground() });

describe("a gateway run's features", () => {
  /** Every feature that hangs something on a run, as the extension wires them (src/extension.ts). */
  function wire() {
    const life = new Lifetimes<GatewayRun>();
    const changed = new Emitter();
    const lines = new Emitter<string>();
    relayRuns(life, changed);
    const logs = new UpstreamLogs(life, lines.event, () => ({
      trace() {},
      debug() {},
      info() {},
      warn() {},
      error() {},
      show() {},
      dispose() {},
    }));
    const host = fakeHost();
    const view = { visible: true, badge: undefined, dispose() {} };
    const questions = questionsView(
      { createTreeView: () => view as never, showInformationMessage: (async () => undefined) as never },
      { executeCommand: (async () => undefined) as never },
      host,
      life,
      questionsTree(host, fakeKit),
    );
    const chatClosed: string[] = [];
    const chat = new ChatEndpoint({
      life,
      log: () => undefined,
      inWorkspace: () => false,
      gateway: () => ({ close: async () => void chatClosed.push('gateway') }) as never,
      listen: async () => ({ url: 'u', endpoint: 'u/secret', close: async () => void chatClosed.push('listener') }),
    });
    return { life, changed, lines, logs, questions, chat, chatClosed };
  }

  test('nothing of a run is left registered after it ends, across runs; only the running gateway is heard', async () => {
    const w = wire();
    let changes = 0;
    w.changed.event(() => changes++);
    const first = newRun();
    w.life.begin({ gateway: first.g, tasks: first.tasks, background: first.background });
    // The chat's endpoint is per-run state, made on first ask.
    (first.g.config as { servers: unknown[] }).servers = [{ name: 'mine' }];
    assert.equal(await w.chat.endpoint(), 'u/secret');
    assert.ok(first.g.listening >= 2, 'the relay and the features listen to the gateway');
    assert.equal(first.tasks.watchers, 1);
    assert.equal(typeof first.background.onChange, 'function');
    first.g.emit({ type: 'server.state', server: 'up', state: 'running' });
    first.g.emit({ type: 'server.log', server: 'up', level: 'info', data: 'a log line' });
    first.background.onChange!();
    assert.equal(changes, 2, 'a state change and the background store relayed; a log line not');
    assert.deepEqual(w.logs.recent.get('up'), ['state: running', 'a log line']);

    await w.life.end();
    assert.deepEqual(leftBehind(w.life, first), []);
    assert.deepEqual(w.chatClosed, ['listener', 'gateway'], "the chat's gateway closed with the run");
    assert.equal(await w.chat.endpoint(), undefined, 'no run: no endpoint for the chat');

    const second = newRun();
    w.life.begin({ gateway: second.g, tasks: second.tasks, background: second.background });
    first.g.emit({ type: 'server.state', server: 'up', state: 'stopped' });
    assert.equal(changes, 2, 'the old gateway is no longer heard');
    second.g.emit({ type: 'server.state', server: 'up', state: 'failed', error: 'boom' });
    assert.equal(changes, 3);
    assert.deepEqual(w.logs.recent.get('up')?.at(-1), 'state: failed — boom');
    await w.life.end();
    assert.deepEqual(leftBehind(w.life, second), []);
    w.life.dispose();
    w.logs.dispose();
    w.questions.dispose();
  });

  test('a feature that listens to a run outside its lifetime is caught', async () => {
    const w = wire();
    const run = newRun();
    w.life.begin({ gateway: run.g, tasks: run.tasks, background: run.background });
    // The mistake the lifetime exists to prevent: a subscription nobody holds for the run.
    run.g.onEvent(() => undefined);
    await w.life.end();
    assert.deepEqual(leftBehind(w.life, run), ['1 gateway event listener(s)']);
    w.life.dispose();
  });
});
