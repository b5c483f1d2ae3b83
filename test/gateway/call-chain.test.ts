// The call chain on every entry (docs/gateway.md "The call chain"): one recorder step put in front of the
// chain as built (GatewayOptions.steps) sees each call's kind, path and the steps it passed, in order —
// offered, pinned, validated, permitted, recorded, sent — for a pass-through tools/call, prompts/get,
// resources/read, completion/complete, resources/subscribe, mcpx_call, each call of an mcpx_exec script,
// POST /v1/call, POST /v1/complete, the palette, an app's call, a 2025-11-25 task, a 2026-07-28
// background call and a /v1/events watch; and a held prompt stops at `recorded`, refused with an activity
// record. Real HTTP, a real fixture upstream.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Listening, listen } from '../../src/app/app';
import { gatewayRoutes } from '../../src/app/routes';
import { parseConfig } from '../../src/config/file';
import { Settings } from '../../src/config/settings';
import type { ActivityRecord } from '../../src/gateway/activity/record';
import type { ChainKind } from '../../src/gateway/call/call';
import type { Step } from '../../src/gateway/call/chain';
import { Gateway } from '../../src/gateway/gateway';
import { MemoryGrantStore } from '../../src/gateway/permissions/grants';
import { MemoryPinStore, type PinStore } from '../../src/gateway/pins/store';
import { MODERN } from '../../src/protocol/revisions';
import { editorContext } from '../../src/vscode/editorCall';
import { fixtureCommand } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { until } from '../harness/wait';

const LEGACY = '2025-11-25';
const STEPS = ['offered', 'pinned', 'validated', 'permitted', 'recorded', 'screened', 'sent'];

interface Seen {
  kind: ChainKind;
  path: string;
  target: string;
  passed: string[];
}

interface Up {
  g: Gateway;
  l: Listening;
  seen: Seen[];
  records: ActivityRecord[];
  close(): Promise<void>;
}

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A gateway in front of `up` (pass-through), its chain with one recorder step in front. */
async function up(args: string[] = [], pins: PinStore = new MemoryPinStore()): Promise<Up> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-chain-'));
  dirs.push(dir);
  const config = parseConfig({ servers: { up: fixtureCommand(['--rev', LEGACY, '--name', 'up', ...args]) } }, 't', {
    env: process.env,
  });
  assert.deepEqual(config.issues, []);
  const settings = new Settings([{ source: 'flag', values: { 'mcp.passthrough': ['up'], 'pool.startTimeout': '5s' } }]);
  const seen: Seen[] = [];
  const records: ActivityRecord[] = [];
  // The recorder wraps the rest: what it sees when the call is answered is every step the call passed.
  const recorder: Step = {
    name: 'recorder',
    run: async (call, next) => {
      try {
        return await next();
      } finally {
        seen.push({ kind: call.kind, path: call.path, target: call.target, passed: call.passed.slice(1) });
      }
    },
  };
  const g = new Gateway(config, settings, {
    stateDir: dir,
    pins,
    permissions: { grants: new MemoryGrantStore(), activity: { append: (r) => records.push(r) } },
    steps: (steps) => [recorder, ...steps],
  });
  const l = await listen({ provider: g, settings, port: 0, address: '127.0.0.1', routes: gatewayRoutes(g) });
  return {
    g,
    l,
    seen,
    records,
    close: async () => {
      await l.close();
      await g.close();
    },
  };
}

/** The one call the recorder saw since `from`, of `kind`. */
function only(u: Up, from: number, kind: ChainKind): Seen {
  const calls = u.seen.slice(from).filter((s) => s.kind === kind);
  assert.equal(calls.length, 1, `one ${kind} call: ${JSON.stringify(u.seen.slice(from))}`);
  return calls[0]!;
}

describe('every entry passes the same steps, in order', () => {
  let u: Up;
  let c: HttpClient;
  before(async () => {
    u = await up();
    c = new HttpClient(u.l.endpoint, LEGACY);
    await c.initialize();
  });
  after(() => u?.close());

  /** `act`, then the one call of `kind` it made: its path and every step, in order. */
  async function entry(kind: ChainKind, path: string, act: () => Promise<unknown>): Promise<Seen> {
    const from = u.seen.length;
    await act();
    await until(() => u.seen.slice(from).some((s) => s.kind === kind), { what: `the ${kind} call answered` });
    const s = only(u, from, kind);
    assert.equal(s.path, path);
    assert.deepEqual(s.passed, STEPS);
    return s;
  }

  test('a pass-through tools/call', async () => {
    const s = await entry('tool', 'pass-through', async () => {
      const r = await c.request('tools/call', { name: 'echo', arguments: { text: 'hi' } });
      assert.equal((r.result!.content as Json[])[0]!.text, 'hi');
    });
    assert.equal(s.target, 'echo');
  });

  test('prompts/get, resources/read and completion/complete', async () => {
    await entry('prompt', 'pass-through', async () => {
      assert.ok((await c.request('prompts/get', { name: 'greet', arguments: { who: 'x' } })).result);
    });
    await entry('resource', 'pass-through', async () => {
      assert.ok((await c.request('resources/read', { uri: 'fixture://doc' })).result);
    });
    const s = await entry('completion', 'pass-through', async () => {
      const r = await c.request('completion/complete', {
        ref: { type: 'ref/prompt', name: 'greet' },
        argument: { name: 'who', value: 'a' },
      });
      assert.ok(r.result?.completion, JSON.stringify(r.error));
    });
    assert.equal(s.target, 'greet');
    // A completion is a call like any other: decided and recorded.
    const rec = [...u.records].reverse().find((r) => r.kind === 'completion');
    assert.equal(rec?.target, 'greet');
    assert.equal(rec?.outcome.status, 'ok');
  });

  test('resources/subscribe and a /v1/events watch', async () => {
    await entry('watch', 'pass-through', async () => {
      assert.deepEqual((await c.request('resources/subscribe', { uri: 'fixture://doc' })).result, {});
    });
    const ctl = new AbortController();
    await entry('watch', 'pass-through', async () => {
      const url = new URL(`/v1/events?uri=${encodeURIComponent('mcpx://up/fixture://other')}`, u.l.endpoint);
      const res = await fetch(url, { headers: { Authorization: `Bearer ${u.l.secret}` }, signal: ctl.signal });
      assert.equal(res.status, 200);
      const reader = res.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      assert.match(first, /resource\.watching/);
      ctl.abort();
    });
  });

  test('mcpx_call and the calls of an mcpx_exec script', async () => {
    await entry('tool', 'mcpx_call', async () => {
      const r = await c.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'echo', arguments: { text: 'via' } },
      });
      assert.equal(r.result!.isError, undefined);
    });
    const from = u.seen.length;
    const script = `await mcpx.call('up', 'echo', { text: 's' });
      await mcpx.read('fixture://doc');
      await mcpx.prompt('greet', { who: 's' });
      return 'done';`;
    const r = await c.request('tools/call', { name: 'mcpx_exec', arguments: { script } });
    assert.equal(r.result!.isError, undefined, JSON.stringify(r.result));
    const run = u.seen.slice(from);
    assert.deepEqual(
      run.map((s) => [s.kind, s.path]),
      [
        ['tool', 'mcpx_exec'],
        ['resource', 'mcpx_exec'],
        ['prompt', 'mcpx_exec'],
      ],
    );
    for (const s of run) assert.deepEqual(s.passed, STEPS);
  });

  test('POST /v1/complete', async () => {
    await entry('completion', 'http-api', async () => {
      const res = await fetch(new URL('/v1/complete', u.l.endpoint), {
        method: 'POST',
        headers: { Authorization: `Bearer ${u.l.secret}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'a' } }),
      });
      assert.equal(res.status, 200, await res.clone().text());
    });
  });

  test('POST /v1/call', async () => {
    await entry('tool', 'http-api', async () => {
      const res = await fetch(new URL('/v1/call/up/echo', u.l.endpoint), {
        method: 'POST',
        headers: { Authorization: `Bearer ${u.l.secret}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: 'api' }),
      });
      assert.equal(res.status, 200);
    });
  });

  test("the palette's call and an app's (the editor's callTool, as vscode/apps/appPanel.ts makes it)", async () => {
    await entry('tool', 'palette', () => u.g.callTool('echo', { text: 'palette' }, editorContext()));
    await entry('tool', 'palette', () =>
      u.g.callTool('mcpx_call', { server: 'up', tool: 'echo', arguments: { text: 'app' } }, editorContext()),
    );
  });

  test('a 2025-11-25 task and a 2026-07-28 background call', async () => {
    // mcpx_call may run as a task (its taskSupport is optional); its upstream call is the chain's.
    const s = await entry('tool', 'mcpx_call', async () => {
      const args = { server: 'up', tool: 'echo', arguments: { text: 't' } };
      const created = (await c.request('tools/call', { name: 'mcpx_call', arguments: args, task: { ttl: 60000 } }))
        .result!;
      const taskId = String((created.task as Json).taskId);
      const done = (await c.request('tasks/result', { taskId })).result!;
      assert.equal((done.content as Json[])[0]!.text, 't');
    });
    assert.equal(s.target, 'echo');
    // The task named in its record, read at the end.
    assert.ok(u.records.find((r) => r.target === 'echo' && r.taskId));
    const modern = new HttpClient(u.l.endpoint, MODERN);
    await entry('tool', 'pass-through', async () => {
      const r = await modern.request('tools/call', { name: 'echo', arguments: { text: 'm' } });
      assert.equal((r.result!.content as Json[])[0]!.text, 'm');
    });
  });
});

describe('a held prompt', () => {
  test('is refused at `recorded` — never sent — and the refusal is recorded', async () => {
    const pins = new MemoryPinStore();
    // First sight pins greet as listed; the next version of the server has changed it.
    const first = await up(['--rug', 'description'], pins);
    try {
      const c = new HttpClient(first.l.endpoint, LEGACY);
      await c.initialize();
      assert.ok((await c.request('prompts/list')).result);
    } finally {
      await first.close();
    }
    const u = await up(['--rug', 'description:pulled'], pins);
    try {
      const c = new HttpClient(u.l.endpoint, LEGACY);
      await c.initialize();
      const r = await c.request('prompts/get', { name: 'greet', arguments: { who: 'x' } });
      assert.equal(r.error?.code, -32602);
      assert.match(r.error!.message, /prompt "greet" of up/);
      const s = u.seen.at(-1)!;
      assert.equal(s.kind, 'prompt');
      assert.deepEqual(s.passed, ['offered', 'pinned', 'validated', 'permitted', 'recorded']);
      const rec = u.records.at(-1)!;
      assert.equal(rec.kind, 'prompt');
      assert.equal(rec.target, 'greet');
      assert.deepEqual(rec.decision, { action: 'deny', rule: 'pins' });
      assert.deepEqual(rec.outcome, { status: 'denied', code: 'pins.held' });
      assert.equal(rec.pin, 'held');
    } finally {
      await u.close();
    }
  });
});
