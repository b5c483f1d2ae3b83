// The files a person names, read so that one bad file stops nothing (docs/security.md "Files mcpx reads"):
// a named pipe with no writer at the config file's path (on a change on disk, SIGHUP and POST /v1/reload)
// or at a server's envFile (when it starts) is refused naming what it is, while /health, the clients and
// every other server go on and SIGTERM is handled; and a config file that is not JSON is refused at a line
// and column, never quoting its text (a token pasted without quotes, a line of the file it links to).
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, test } from 'node:test';
import { jsonSyntaxError } from '../../src/config/jsonSyntax';
import { readEnvFile } from '../../src/config/envFile';
import { loadConfig } from '../../src/config/file';
import { cliJs } from '../harness/gateway';
import { fixtureCommand } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { until } from '../harness/wait';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-config-files-'));
const env = { ...process.env, XDG_CONFIG_HOME: dir, XDG_STATE_HOME: dir, MCPX_PORT: '' };
const running: ChildProcess[] = [];
after(() => {
  for (const c of running) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const fifo = (path: string) => execFileSync('mkfifo', [path]);
const A = fixtureCommand(['--rev', '2025-11-25', '--name', 'a']);
const text = (r: Json | undefined) => String(((r?.content as Json[]) ?? [])[0]?.text ?? '');

interface Daemon {
  child: ChildProcess;
  endpoint: string;
  stderr(): string;
}

async function daemon(config: string): Promise<Daemon> {
  const child = spawn(process.execPath, [cliJs(), 'daemon', '--port', '0', '--config', config], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const line = await new Promise<string>((r) => createInterface({ input: child.stdout! }).once('line', r));
  const endpoint = /mcpx listening on (\S+)$/.exec(line)?.[1] ?? '';
  assert.ok(endpoint, line);
  return { child, endpoint, stderr: () => stderr };
}

/** /health answers within a second: the event loop is not held. */
async function healthy(d: Daemon): Promise<void> {
  const res = await fetch(new URL('/health', d.endpoint), { signal: AbortSignal.timeout(1000) });
  assert.equal(res.status, 200);
}

/** SIGTERM ends it within five seconds. */
async function stops(d: Daemon): Promise<void> {
  const exited = new Promise((r) => d.child.once('exit', r));
  d.child.kill('SIGTERM');
  const t = setTimeout(() => d.child.kill('SIGKILL'), 5000);
  const signal = await exited;
  clearTimeout(t);
  assert.equal(d.child.signalCode === 'SIGKILL', false, `SIGTERM was not handled (${String(signal)})`);
}

function reload(endpoint: string, secret: string): Promise<Response> {
  return fetch(new URL('/v1/reload', endpoint), {
    method: 'POST',
    headers: { Authorization: `Bearer ${secret}` },
    signal: AbortSignal.timeout(5000),
  });
}

function mcpx(args: string[]): Promise<{ code: number | null; out: string }> {
  const p = spawn(process.execPath, [cliJs(), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  p.stdout!.on('data', (d) => (out += d));
  p.stderr!.on('data', (d) => (out += d));
  return new Promise((r) => p.on('close', (code) => r({ code, out })));
}

describe('a named pipe where a file is read', { timeout: 60_000 }, () => {
  test('the config file a FIFO: a change on disk, SIGHUP and /v1/reload each refuse it naming what it is; nothing waits on it', async () => {
    mkdirSync(join(dir, 'one'));
    const config = join(dir, 'one', 'mcp.json');
    writeFileSync(config, JSON.stringify({ servers: { a: A } }));
    const d = await daemon(config);
    const secret = d.endpoint.split('/mcp/')[1]!;
    const c = new HttpClient(d.endpoint, '2025-11-25');
    await c.initialize();
    const call = async () =>
      text(
        (
          await c.request('tools/call', {
            name: 'mcpx_call',
            arguments: { server: 'a', tool: 'echo', arguments: { text: 'x' } },
          })
        ).result,
      );
    assert.equal(await call(), 'x');
    // Saved by rename: the watcher reads the path, which is now a pipe nobody writes to.
    const pipe = join(dir, 'one', 'pipe');
    fifo(pipe);
    renameSync(pipe, config);
    await until(() => /the config file changed: .*named pipe \(FIFO\)/.test(d.stderr()), {
      what: 'the change refused',
    });
    await healthy(d);
    assert.equal(await call(), 'x', 'the running configuration is kept');
    d.child.kill('SIGHUP');
    await until(() => /SIGHUP: .*named pipe \(FIFO\)/.test(d.stderr()), { what: 'SIGHUP refused' });
    await healthy(d);
    const res = await reload(d.endpoint, secret);
    assert.equal(res.status, 422);
    const body = (await res.json()) as { problems: string[] };
    assert.match(body.problems.join('\n'), /mcp\.json is a named pipe \(FIFO\), not a regular file/);
    await healthy(d);
    await stops(d);
  });

  test("a server's envFile a FIFO: that server's start fails naming it; the other server and the gateway go on", async () => {
    mkdirSync(join(dir, 'two'));
    const config = join(dir, 'two', 'mcp.json');
    const envFile = join(dir, 'two', 'env');
    fifo(envFile);
    writeFileSync(
      config,
      JSON.stringify({ servers: { a: A, b: { ...fixtureCommand(['--rev', '2025-11-25']), envFile } } }),
    );
    const d = await daemon(config);
    const c = new HttpClient(d.endpoint, '2025-11-25');
    await c.initialize();
    const call = (server: string) =>
      c.request('tools/call', { name: 'mcpx_call', arguments: { server, tool: 'echo', arguments: { text: server } } });
    const b = await Promise.race([
      call('b'),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the call of b waits on the pipe')), 5000)),
    ]);
    const refusal = JSON.stringify(b.response);
    assert.match(refusal, /env is a named pipe \(FIFO\), not a regular file/);
    assert.equal(text((await call('a')).result), 'a');
    await healthy(d);
    await stops(d);
  });

  test('read directly: a FIFO, a directory and a character device are refused at once, naming them', () => {
    const pipe = join(dir, 'direct-pipe');
    fifo(pipe);
    assert.throws(() => readEnvFile(pipe), /direct-pipe is a named pipe \(FIFO\), not a regular file/);
    assert.throws(() => readEnvFile(dir), /is a directory, not a regular file/);
    assert.throws(() => readEnvFile('/dev/zero'), /\/dev\/zero is a character device, not a regular file/);
    const issues = loadConfig(pipe, { env: process.env }).issues;
    assert.match(issues[0]!.message, /named pipe \(FIFO\)/);
  });
});

describe('a config file that is not JSON', { timeout: 60_000 }, () => {
  test('refused at its line and column, in the 422 body, `mcpx reload` and the log, never quoting the file', async () => {
    mkdirSync(join(dir, 'three'));
    const config = join(dir, 'three', 'mcp.json');
    writeFileSync(config, JSON.stringify({ servers: { a: A } }));
    const d = await daemon(config);
    const secret = d.endpoint.split('/mcp/')[1]!;
    // A token pasted without its quotes, on the third line.
    writeFileSync(config, '{\n  "servers": {},\n  "settings": { "token": ghp_s3cretTOKENvalue }\n}\n');
    const res = await reload(d.endpoint, secret);
    assert.equal(res.status, 422);
    const body = await res.text();
    assert.match(body, /mcp\.json is not valid JSON at line 3, column 26: expected a value/);
    const cli = await mcpx(['reload']);
    assert.equal(cli.code, 1);
    assert.match(cli.out, /line 3, column 26/);
    // The config path a link to another file: its first line is not quoted either.
    const other = join(dir, 'three', 'other');
    writeFileSync(other, 'root:x:0:0:root-secret-line:/root:/bin/bash\n');
    rmSync(config);
    symlinkSync(other, config);
    const linked = await (await reload(d.endpoint, secret)).text();
    assert.match(linked, /line 1, column 1/);
    await until(() => /line 1, column 1/.test(d.stderr()), { what: 'the log says it too' });
    for (const seen of [body, cli.out, linked, d.stderr()]) {
      assert.doesNotMatch(seen, /ghp_s3cret|root-secret-line/, 'the file is never quoted');
    }
    await stops(d);
  });

  test('jsonSyntaxError: where and what, for each kind of mistake', () => {
    const at = (t: string) => {
      assert.throws(() => JSON.parse(t));
      const e = jsonSyntaxError(t)!;
      return `${e.line}:${e.column} ${e.problem}`;
    };
    assert.equal(jsonSyntaxError('{"a": [1, 2.5e3, true, null, "x\\u00e9"]}'), undefined);
    assert.equal(at('{"a": secret}'), '1:7 expected a value (an object, array, string, number, true, false or null)');
    assert.equal(at('{\n  "a": 1,\n}'), '3:1 expected a property name in double quotes');
    assert.equal(at('{"a" 1}'), "1:6 expected ':' after a property name");
    assert.equal(at('{"a": 1 "b": 2}'), "1:9 expected ',' or '}' after a property's value");
    assert.equal(at('[1 2]'), "1:4 expected ',' or ']' after an array element");
    assert.equal(at('{"a": "open'), '1:12 a string is not closed');
    assert.equal(at('"tab\there"'), '1:5 a control character inside a string (write it as an escape)');
    assert.equal(at('"\\x"'), '1:2 an invalid escape inside a string');
    assert.equal(at('{"a": 1} x'), '1:10 more text after the JSON value');
    assert.equal(
      at('{"a":'),
      '1:6 the text ends where a value (an object, array, string, number, true, false or null) was expected',
    );
    assert.equal(at('01'), '1:2 more text after the JSON value');
  });
});
