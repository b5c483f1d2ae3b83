// The bundled extension (dist/extension.js) activated against a hand-written fake of the few VS Code
// APIs it touches: it starts the gateway on mcpx.port (the next free one if taken), shows the endpoint
// in the status bar, copies it, and disposing the extension closes the server. The same bundle runs in
// a real VS Code extension host in the editor integration tests. A reload leaves nothing of the run before.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import Module from 'node:module';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { repoRoot } from '../harness/gateway';
import { fixtureCommand, killAll } from '../harness/upstreams';
import { HttpClient } from '../harness/wire';
import { fakeMemento } from '../vscode-fakes/editor';
import { until } from '../harness/wait';

after(() => killAll());

interface Disposable {
  dispose(): unknown;
}

function fakeVscode(port: number, servers: Record<string, unknown> = {}) {
  const state = {
    clipboard: '',
    statusText: '',
    messages: [] as string[],
    commands: new Map<string, () => unknown>(),
    views: [] as string[],
  };
  class EventEmitter<T> {
    private ls: Array<(v: T) => void> = [];
    event = (l: (v: T) => void) => {
      this.ls.push(l);
      return { dispose: () => (this.ls = this.ls.filter((x) => x !== l)) };
    };
    fire(v: T) {
      for (const l of this.ls) l(v);
    }
    dispose() {
      this.ls = [];
    }
  }
  const api = {
    EventEmitter,
    StatusBarAlignment: { Left: 1, Right: 2 },
    ThemeColor: class {
      constructor(readonly id: string) {}
    },
    Disposable: {
      from: (...ds: Disposable[]) => ({
        dispose: () => {
          for (const d of ds) d.dispose();
        },
      }),
    },
    workspace: {
      workspaceFolders: undefined,
      isTrusted: true,
      getConfiguration: () => ({
        inspect: (key: string) => (key === 'port' ? { globalValue: port } : undefined),
        get: (k: string, d?: unknown) => (k === 'servers' ? servers : d),
      }),
      onDidChangeWorkspaceFolders: () => ({ dispose() {} }),
      onDidChangeConfiguration: () => ({ dispose() {} }),
      onDidGrantWorkspaceTrust: () => ({ dispose() {} }),
      registerTextDocumentContentProvider: () => ({ dispose() {} }),
      createFileSystemWatcher: () => ({
        onDidChange: () => ({ dispose() {} }),
        onDidCreate: () => ({ dispose() {} }),
        onDidDelete: () => ({ dispose() {} }),
        dispose() {},
      }),
    },
    languages: { createDiagnosticCollection: () => ({ clear() {}, set() {}, dispose() {} }) },
    window: {
      createOutputChannel: () => ({
        trace() {},
        debug() {},
        info() {},
        error() {},
        warn() {},
        show() {},
        dispose() {},
      }),
      createStatusBarItem: () => {
        const item = {
          name: '',
          command: '',
          tooltip: '',
          show() {},
          dispose() {},
          set text(t: string) {
            state.statusText = t;
          },
        };
        return item;
      },
      registerTreeDataProvider: (id: string) => (state.views.push(id), { dispose() {} }),
      createTreeView: (id: string) => (state.views.push(id), { visible: false, badge: undefined, dispose() {} }),
      showInformationMessage: (m: string) => state.messages.push(m),
      showWarningMessage: (m: string) => state.messages.push(m),
      showErrorMessage: (m: string) => state.messages.push(m),
    },
    commands: {
      registerCommand: (id: string, fn: () => unknown) => {
        state.commands.set(id, fn);
        return { dispose: () => state.commands.delete(id) };
      },
    },
    env: { clipboard: { writeText: async (t: string) => void (state.clipboard = t) } },
  };
  return { api, state };
}

test('activate: gateway on the next free port, endpoint in the status bar and clipboard; dispose closes it', async () => {
  // Occupy a port so the extension has to take the next one.
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
  const taken = (blocker.address() as { port: number }).port;
  const { api, state } = fakeVscode(taken, { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) });
  const stateHome = mkdtempSync(join(tmpdir(), 'mcpx-ext-state-'));
  const oldState = process.env.XDG_STATE_HOME;
  process.env.XDG_STATE_HOME = stateHome;
  const load = (Module as unknown as { _load: (req: string, ...rest: unknown[]) => unknown })._load;
  (Module as unknown as { _load: unknown })._load = (req: string, ...rest: unknown[]) =>
    req === 'vscode' ? api : load(req, ...rest);
  try {
    const ext = require(join(repoRoot(), 'dist', 'extension.js')) as {
      activate(ctx: unknown): Promise<{
        endpoint(): string | undefined;
        host: { gateway?: { servers(): Array<{ name: string; pid?: number }> }; reload(): Promise<void> };
        life: { counts(): { extension: number; run: number } };
      }>;
    };
    const subscriptions: Disposable[] = [];
    // VS Code gives every extension its workspaceState ("always allow" is kept there).
    const handle = await ext.activate({ subscriptions, workspaceState: fakeMemento() });
    const url = handle.endpoint();
    assert.ok(url);
    const port = Number(new URL(url).port);
    assert.notEqual(port, taken);
    assert.ok(port > taken && port < taken + 20);
    assert.equal(
      state.statusText,
      `$(plug) mcpx :${port} · 0/1`,
      'port and running/configured upstreams (none started eagerly)',
    );
    const pkg = JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as {
      contributes: { commands: Array<{ command: string }>; views: { mcpx: Array<{ id: string }> } };
    };
    assert.deepEqual(
      [...state.commands.keys()].sort(),
      pkg.contributes.commands.map((c) => c.command).sort(),
      'every contributed command registered up front',
    );
    assert.deepEqual(state.views.sort(), pkg.contributes.views.mcpx.map((v) => v.id).sort());
    const endpoints = JSON.parse(readFileSync(join(stateHome, 'mcpx', 'endpoints.json'), 'utf8')) as Record<
      string,
      { url: string }
    >;
    assert.equal(endpoints['(no folder)']!.url, url, '<state>/endpoints.json names the endpoint of this window');
    // docs/security.md "The endpoint secret": the endpoint carries the install's secret, endpoints.json is
    // owner-only, and the bare /mcp is refused.
    const secret = readFileSync(join(stateHome, 'mcpx', 'endpoint-secret'), 'utf8').trim();
    assert.equal(url, `http://127.0.0.1:${port}/mcp/${secret}`);
    assert.equal(statSync(join(stateHome, 'mcpx', 'endpoints.json')).mode & 0o777, 0o600, 'endpoints.json is 0600');
    assert.equal(statSync(join(stateHome, 'mcpx', 'endpoint-secret')).mode & 0o777, 0o600, 'the secret is 0600');
    assert.equal(
      (
        await new HttpClient(`http://127.0.0.1:${port}/mcp`, '2026-07-28', { noValidate: true }).request(
          'server/discover',
        )
      ).reply.status,
      401,
    );
    await state.commands.get('mcpx.copyEndpoint')!();
    assert.equal(state.clipboard, url);
    const c = new HttpClient(url, '2026-07-28');
    assert.equal((await c.request('server/discover')).reply.status, 200);
    // An upstream started by a call, then the extension deactivates: its process is gone too.
    await c.request('tools/call', {
      name: 'mcpx_call',
      arguments: { server: 'up', tool: 'echo', arguments: { text: 'hi' } },
    });
    assert.equal(state.statusText, `$(plug) mcpx :${port} · 1/1`);
    // A reload is a new run: the old run's subscriptions are gone, the new one's as many (src/vscode/lifetimes.ts).
    const held = handle.life.counts();
    assert.ok(held.run > 0 && held.extension > 0, JSON.stringify(held));
    await handle.host.reload();
    assert.deepEqual(handle.life.counts(), held, 'nothing of the first run left registered');
    assert.equal(handle.endpoint(), url, 'the same port after a reload');
    await c.request('tools/call', {
      name: 'mcpx_call',
      arguments: { server: 'up', tool: 'echo', arguments: { text: 'hi' } },
    });
    const pid = handle.host.gateway!.servers().find((s) => s.name === 'up')!.pid!;
    assert.ok(pid > 0);
    for (const d of subscriptions) d.dispose();
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await until(() => !alive(), { what: 'the upstream process gone' });
    assert.equal(alive(), false, 'deactivation stops every upstream process');
    assert.deepEqual(handle.life.counts(), { extension: 0, run: 0 }, 'every disposable of both lifetimes disposed');
    const entries = () => JSON.parse(readFileSync(join(stateHome, 'mcpx', 'endpoints.json'), 'utf8')) as object;
    const closed = () =>
      fetch(url, { method: 'POST' }).then(
        () => false,
        () => true,
      );
    await until(async () => Object.keys(entries()).length === 0 && (await closed()), {
      what: 'the server closed and its entry removed',
    });
    await assert.rejects(fetch(url, { method: 'POST' }), 'the server is closed on dispose');
    assert.deepEqual(entries(), {}, 'and its entry removed');
  } finally {
    (Module as unknown as { _load: unknown })._load = load;
    blocker.close();
    if (oldState === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = oldState;
    rmSync(stateHome, { recursive: true, force: true });
  }
});
