// The activity log read from outside (docs/gateway.md "Activity"): GET /v1/activity on a real gateway's
// listener (the endpoint secret, filters, the follow stream), `mcpx activity` (dist/cli.js) against a
// running gateway and against the files alone, and — once the call gate records calls — a real call
// through a daemon to a fixture upstream showing up in `mcpx activity`.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { type Listening, listen } from '../../src/app/app';
import { gatewayRoutes } from '../../src/app/routes';
import { parseConfig } from '../../src/config/file';
import { Settings } from '../../src/config/settings';
import { activityDir } from '../../src/gateway/activity/files';
import type { ActivityRecord } from '../../src/gateway/activity/record';
import { Gateway } from '../../src/gateway/gateway';
import { record } from '../harness/activity';
import { cliJs } from '../harness/gateway';
import { fixtureCommand } from '../harness/upstreams';

const xdg = mkdtempSync(join(tmpdir(), 'mcpx-activity-http-'));
const state = join(xdg, 'mcpx');
let g: Gateway;
let l: Listening;
const base = () => l.url.replace(/\/mcp$/, '');
const auth = () => ({ Authorization: `Bearer ${l.secret}` });

before(async () => {
  const config = parseConfig({ servers: {} }, 'test', { env: process.env });
  const settings = new Settings([]);
  g = new Gateway(config, settings, { stateDir: state, activity: { dir: activityDir(state), writer: 'daemon' } });
  l = await listen({ provider: g, settings, port: 0, address: '127.0.0.1', routes: gatewayRoutes(g) });
  for (let i = 0; i < 6; i++)
    g.activity.append(record(i, { time: new Date(Date.now() - (6 - i) * 60_000).toISOString() }));
  // One older than an hour.
  g.activity.append(record(6, { target: 'long ago', time: new Date(Date.now() - 2 * 3_600_000).toISOString() }));
  await g.activity.flushed();
});

after(async () => {
  await l.close();
  await g.close();
  rmSync(xdg, { recursive: true, force: true });
});

async function get(query: string): Promise<ActivityRecord[]> {
  const res = await fetch(`${base()}/v1/activity${query}`, { headers: auth() });
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as { records: ActivityRecord[] }).records;
}

function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliJs(), ...args], {
      env: { ...process.env, XDG_STATE_HOME: xdg, XDG_CONFIG_HOME: xdg, MCPX_PORT: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('GET /v1/activity', () => {
  test('refused without the endpoint secret', async () => {
    const res = await fetch(`${base()}/v1/activity`);
    assert.equal(res.status, 401);
    assert.doesNotMatch(await res.text(), /tool-/);
  });

  test('newest first; client, server, since and limit filter; a bad query is 400 naming it', async () => {
    const all = await get('');
    assert.deepEqual(
      all.map((r) => r.target),
      ['tool-5', 'tool-4', 'tool-3', 'tool-2', 'tool-1', 'tool-0', 'long ago'],
    );
    assert.equal(all[0]!.result, undefined, 'no result leaves the gateway');
    assert.equal(all[0]!.arguments, undefined, 'no arguments under activity.arguments digest');
    assert.deepEqual(
      (await get('?client=agent-a')).map((r) => r.target),
      ['tool-5', 'tool-3', 'tool-1'],
    );
    // By identity as well as by declared name.
    assert.deepEqual(
      (await get('?client=client:0&server=other')).map((r) => r.target),
      ['tool-0', 'long ago'],
    );
    assert.deepEqual(
      (await get('?since=1h&limit=2')).map((r) => r.target),
      ['tool-5', 'tool-4'],
    );
    const since = new Date(Date.now() - 3.5 * 60_000).toISOString();
    assert.deepEqual(
      (await get(`?since=${since}`)).map((r) => r.target),
      ['tool-5', 'tool-4', 'tool-3'],
    );
    for (const [q, why] of [
      ['?limit=0', /limit: expected an integer from 1 to 10000/],
      ['?since=yesterday', /since: expected an ISO 8601 time or a duration/],
      ['?tool=x', /unknown parameter "tool"/],
    ] as const) {
      const res = await fetch(`${base()}/v1/activity${q}`, { headers: auth() });
      assert.equal(res.status, 400);
      assert.match(((await res.json()) as { error: string }).error, why);
    }
  });

  test('follow=1 streams the last records, then each new one; a reader that goes is let go', async () => {
    const ac = new AbortController();
    const res = await fetch(`${base()}/v1/activity?follow=1&server=up&limit=2`, { headers: auth(), signal: ac.signal });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const events = async (count: number): Promise<ActivityRecord[]> => {
      for (;;) {
        const got = [...text.matchAll(/event: record\ndata: (.*)\n\n/g)].map(
          (m) => JSON.parse(m[1]!) as ActivityRecord,
        );
        if (got.length >= count) return got;
        const { value, done } = await reader.read();
        assert.ok(!done, `the stream ended early: ${text}`);
        text += decoder.decode(value, { stream: true });
      }
    };
    assert.deepEqual(
      (await events(2)).map((r) => r.target),
      ['tool-4', 'tool-5'],
      'the last two, oldest first',
    );
    g.activity.append(record(7, { target: 'not this server', server: 'other' }));
    g.activity.append(record(8, { target: 'new one' }));
    const got = await events(3);
    assert.deepEqual(
      got.map((r) => r.target),
      ['tool-4', 'tool-5', 'new one'],
    );
    ac.abort();
    await reader.cancel().catch(() => undefined);
    // Every follower that goes is let go: the bound (16 at once) admits 16 more, again and again.
    for (let round = 0; round < 2; round++) {
      const opened: AbortController[] = [];
      // Each open response is held: one collected unread is cancelled by fetch, its stream let go.
      const held: Response[] = [];
      for (let i = 0; i < 16; i++) {
        const c = new AbortController();
        opened.push(c);
        // The one still closing server-side is admitted once it has gone: try until it is.
        for (;;) {
          const r = await fetch(`${base()}/v1/activity?follow=1&limit=1`, { headers: auth(), signal: c.signal });
          if (r.status === 200) {
            held.push(r);
            break;
          }
          assert.equal(r.status, 429);
          await r.text();
          await new Promise((res) => setImmediate(res));
        }
      }
      const refused = await fetch(`${base()}/v1/activity?follow=1`, { headers: auth() });
      assert.equal(refused.status, 429, 'a 17th at once is refused');
      await refused.text();
      for (const c of opened) c.abort();
    }
  });
});

describe('mcpx activity', () => {
  test('against a running gateway: a table, oldest first; --json; --client and --server', async () => {
    const t = await run(['activity', '--endpoint', l.endpoint, '--since', '1h']);
    assert.equal(t.code, 0, t.stderr);
    const rows = t.stdout.trimEnd().split('\n');
    assert.match(rows[0]!, /^TIME\s+CLIENT\s+SERVER\s+TARGET\s+DECISION\s+OUTCOME\s+DURATION$/);
    assert.match(rows[1]!, /^\S+Z\s+agent-b\s+other\s+tool-0\s+allow \(default\)\s+ok\s+3 ms$/);
    assert.ok(!t.stdout.includes('long ago'), '--since 1h');
    assert.match(rows.at(-1)!, /new one/);
    const j = await run(['activity', '--endpoint', l.endpoint, '--json', '--client', 'agent-a', '--server', 'up']);
    assert.equal(j.code, 0, j.stderr);
    const got = j.stdout
      .trimEnd()
      .split('\n')
      .map((x) => (JSON.parse(x) as ActivityRecord).target);
    assert.deepEqual(got, ['tool-1', 'tool-5']);
  });

  test('with no gateway running: the files in the state directory', async () => {
    const port = await closedPort();
    const r = await run(['activity', '--json', '--server', 'other'], { MCPX_PORT: String(port) });
    assert.equal(r.code, 0, r.stderr);
    const got = r.stdout
      .trimEnd()
      .split('\n')
      .map((x) => (JSON.parse(x) as ActivityRecord).target);
    assert.deepEqual(got, ['long ago', 'tool-0', 'tool-3', 'not this server']);
    const f = await run(['activity', '--follow'], { MCPX_PORT: String(port) });
    assert.equal(f.code, 2);
    assert.match(f.stderr, /--follow needs a running gateway/);
    const bad = await run(['activity', '--since', 'soon'], { MCPX_PORT: String(port) });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--since: expected an ISO 8601 time or a duration/);
  });
});

describe('a real call through a daemon', () => {
  let daemon: ChildProcess | undefined;
  const dir = join(xdg, 'daemon');
  after(async () => {
    if (daemon && daemon.exitCode === null) {
      const exited = new Promise((r) => daemon!.once('exit', r));
      daemon.kill('SIGTERM');
      await exited;
    }
  });

  test('recorded once the call gate appends: mcpx_call to a fixture upstream, then mcpx activity', async () => {
    mkdirSync(dir, { recursive: true });
    const config = join(dir, 'c.json');
    writeFileSync(config, JSON.stringify({ servers: { up: fixtureCommand(['--rev', '2025-11-25']) } }));
    const env = { ...process.env, XDG_STATE_HOME: dir, XDG_CONFIG_HOME: dir, MCPX_PORT: '' };
    daemon = spawn(process.execPath, [cliJs(), 'daemon', '--port', '0', '--config', config], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const line = await new Promise<string>((resolve) =>
      createInterface({ input: daemon!.stdout! }).once('line', resolve),
    );
    const endpoint = /mcpx listening on (\S+)$/.exec(line)?.[1] ?? '';
    assert.ok(endpoint, line);
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'mcpx_call', arguments: { server: 'up', tool: 'echo', arguments: { text: 'hi' } } },
      }),
    });
    assert.match(await res.text(), /hi/);
    const r = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, [cliJs(), 'activity', '--json', '--endpoint', endpoint], { env });
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.on('close', (code) => resolve({ code, stdout }));
    });
    assert.equal(r.code, 0);
    const records = r.stdout
      .trimEnd()
      .split('\n')
      .filter(Boolean)
      .map((x) => JSON.parse(x) as ActivityRecord);
    const call = records.find((x) => x.server === 'up' && x.target === 'echo');
    assert.ok(call, r.stdout);
    assert.equal(call.path, 'mcpx_call');
    assert.equal(call.outcome.status, 'ok');
    assert.equal(call.client.transport, 'http');
  });
});
