// The command line's shape: one module per subcommand behind the dispatcher's table (src/cli.ts), the
// usage made from what each module declares, bad usage refused naming the subcommand or the flag (exit 2,
// with the usage), and the stdio shim's path free of the gateway by its imports alone.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { build } from 'esbuild';
import { COMMANDS } from '../../src/cli';
import { FLAGS } from '../../src/cli/args';
import type { Command } from '../../src/cli/command';
import { cliJs, repoRoot } from '../harness/gateway';

const cli = cliJs();
const dir = mkdtempSync(join(tmpdir(), 'mcpx-cli-usage-'));
after(() => rmSync(dir, { recursive: true, force: true }));
// An isolated config and state home: no test here may find (or start) a gateway of the user's.
const env = { ...process.env, XDG_CONFIG_HOME: dir, XDG_STATE_HOME: dir, MCPX_PORT: '' };

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { env, cwd: dir }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

async function commands(): Promise<Array<[string, Command]>> {
  return Promise.all(Object.entries(COMMANDS).map(async ([n, load]) => [n, await load()] as [string, Command]));
}

/** The usage lines of one subcommand as they are printed. */
const synopses = (c: Command) => c.usage.map(([synopsis]) => `  mcpx ${synopsis}`);

describe('mcpx: the table and the usage made from it', () => {
  test('every flag a synopsis shows is one its subcommand takes; every flag is taken by some subcommand', async () => {
    const all = await commands();
    for (const [name, c] of all) {
      for (const [synopsis] of c.usage) {
        assert.ok(synopsis.startsWith(`${name} `) || synopsis === name, `${name}: ${synopsis}`);
        for (const [, flag] of synopsis.matchAll(/--([a-z][a-z-]*)/g))
          assert.ok(
            (c.flags as readonly string[]).includes(flag!),
            `mcpx ${name} shows --${flag} but does not take it`,
          );
      }
    }
    for (const flag of Object.keys(FLAGS))
      assert.ok(
        all.some(([, c]) => (c.flags as readonly string[]).includes(flag)),
        `--${flag} is taken by no subcommand`,
      );
  });

  test('mcpx help: every subcommand in table order, the --connect note once; help SUBCOMMAND and --help: that one', async () => {
    const all = await commands();
    const help = await run(['help']);
    assert.equal(help.code, 0, help.stderr);
    const lines = help.stdout.split('\n');
    assert.equal(lines[0], 'usage:');
    const at = all.flatMap(([, c]) => synopses(c)).map((s) => lines.findIndex((l) => l.startsWith(s)));
    assert.ok(!at.includes(-1), `a synopsis is missing:\n${help.stdout}`);
    assert.deepEqual(
      at,
      [...at].sort((a, b) => a - b),
      'in table order',
    );
    assert.equal(help.stdout.match(/--connect auto \(the default\)/g)?.length, 1);
    assert.equal((await run([])).stdout, help.stdout, 'no subcommand is help');

    const tasks = await run(['help', 'tasks']);
    assert.equal(tasks.code, 0, tasks.stderr);
    const own = synopses(all.find(([n]) => n === 'tasks')![1]);
    assert.deepEqual(
      tasks.stdout.split('\n').filter((l) => l.startsWith('  mcpx ')),
      own,
    );
    assert.equal((await run(['tasks', '--help'])).stdout, tasks.stdout);
    const tools = await run(['tools', '-h']);
    assert.equal(tools.code, 0, tools.stderr);
    assert.match(tools.stdout, /--connect auto \(the default\)/, 'the note of a flag it takes');
  });
});

describe('mcpx: bad usage is exit 2, naming what is wrong, with the usage', () => {
  test('an unknown subcommand: named, then every subcommand (before any flag is read)', async () => {
    for (const args of [['frob'], ['frob', '--x'], ['--port', '1'], ['help', 'frob']]) {
      const r = await run(args);
      assert.equal(r.code, 2, args.join(' '));
      assert.equal(r.stdout, '');
      assert.match(r.stderr, new RegExp(`^mcpx: unknown command "${args[0] === 'help' ? 'frob' : args[0]}"\nusage:\n`));
      assert.match(r.stderr, /^ {2}mcpx daemon /m);
      assert.match(r.stderr, /^ {2}mcpx auth logout /m);
    }
  });

  test('an unknown flag: named with its subcommand, then that subcommand usage only', async () => {
    const r = await run(['serve', '--transport', 'stdio', '--frobnicate', '1']);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /^mcpx: --frobnicate: unknown flag for mcpx serve\nusage:\n {2}mcpx serve --transport stdio /,
    );
    assert.doesNotMatch(r.stderr, /mcpx daemon|mcpx tasks/);
  });

  test('a flag of another subcommand: which ones take it; it was silently ignored before', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['elicit', '--port', '9000'], /^mcpx: --port: only mcpx daemon, serve, settings and auth take it\n/],
      [['tools', '--text'], /^mcpx: --text: only mcpx call, read, exec and guardrails take it\n/],
      [
        ['call', 'a', 'b', '--endpoint', 'http://127.0.0.1:1/mcp'],
        /^mcpx: --endpoint: only mcpx elicit, tasks, activity, auth, reload, restart, permissions, pins and profiles take it\n/,
      ],
      [['daemon', '--all'], /^mcpx: --all: only mcpx tasks, connect and disconnect take it\nusage:\n {2}mcpx daemon /],
    ];
    for (const [args, want] of cases) {
      const r = await run(args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, want);
    }
  });

  test('a switch given a value, a flag without one, an argument where none is taken, a missing one', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['call', 'a', 'b', '--text=1'], /^mcpx: --text: takes no value\nusage:\n {2}mcpx call /],
      [['serve', '--transport', 'stdio', '--standalone=yes'], /^mcpx: --standalone: takes no value\n/],
      [['daemon', '--port'], /^mcpx: --port: needs a value\nusage:\n {2}mcpx daemon /],
      [['settings', 'extra'], /^mcpx: extra: unexpected argument \(mcpx settings takes none\)\n/],
      [['serve', '--transport', 'tcp'], /^mcpx: serve needs --transport stdio\nusage:\n {2}mcpx serve /],
      [['call', 'srv'], /^mcpx: mcpx call needs a SERVER and a TOOL\nusage:\n {2}mcpx call /],
      [['read', 'a', 'b'], /^mcpx: mcpx read: unexpected argument "b"\n/],
      [
        ['auth', 'frob'],
        /^mcpx: mcpx auth: expected login, status, logout or whoami, got "frob"\nusage:\n {2}mcpx auth login /,
      ],
      [['elicit', 'answer', 'q1'], /^mcpx: mcpx elicit answer needs an ID and 'JSON'\n/],
      [
        ['auth', 'whoami', '--endpoint', 'http://127.0.0.1:1/mcp'],
        /^mcpx: mcpx auth whoami needs --endpoint URL and --token/,
      ],
      [['auth', 'status', '--token', 't'], /^mcpx: mcpx auth: --endpoint and --token are for whoami\n/],
    ];
    for (const [args, want] of cases) {
      const r = await run(args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, want);
    }
  });
});

describe('mcpx serve --transport stdio: the shim path loads no gateway', () => {
  test('from src/cli.ts through src/cli/serve.ts, no static import reaches src/gateway, src/server or src/app', async () => {
    const root = repoRoot();
    const { metafile } = await build({
      entryPoints: [join(root, 'src', 'cli.ts')],
      absWorkingDir: root,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    /** What `from` loads when it is loaded: its static imports, transitively (a dynamic import waits). */
    const loads = (from: string) => {
      const seen = new Set<string>();
      const next = [from];
      while (next.length) {
        const f = next.pop()!;
        if (seen.has(f)) continue;
        seen.add(f);
        for (const i of metafile.inputs[f]?.imports ?? []) if (i.kind !== 'dynamic-import') next.push(i.path);
      }
      return seen;
    };
    const dispatcher = loads('src/cli.ts');
    assert.deepEqual(
      [...dispatcher].filter((f) => f.startsWith('src/')).sort(),
      // and the printable escaping of the errors it prints (kit/printable.ts: no import of its own).
      ['src/cli.ts', 'src/cli/args.ts', 'src/cli/command.ts', 'src/kit/printable.ts'],
      'the dispatcher loads no subcommand',
    );
    const shim = [...dispatcher, ...loads('src/cli/serve.ts')];
    const heavy = (f: string) => /^src\/(gateway|server|app)\//.test(f) || f === 'src/cli/standalone.ts';
    assert.deepEqual(shim.filter(heavy), []);
    // The walk sees what a subcommand does load: the daemon is the gateway.
    assert.ok(loads('src/cli/daemon.ts').has('src/gateway/gateway.ts'));
    assert.ok(loads('src/cli/standalone.ts').has('src/server/server.ts'));
  });
});
