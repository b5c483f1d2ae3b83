// A whole run of the headless gateway, then a grep (docs/security.md "Secrets in output and logs"): every
// secret the configuration holds — URL userinfo, query tokens, bearer headers, a stdio server's env that
// the upstream itself prints, an envFile's token — and the endpoint secret are searched for in everything
// the run wrote:
// stdout, stderr, every answer a client got, every file in the state directory — the activity log among
// them, kept with `activity.arguments: full` and given calls whose arguments quote the secrets. The endpoint secret may
// appear only where the person looks for it (the listening line) and in its own 0600 file.
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, test } from 'node:test';
import { repoRoot } from '../harness/gateway';
import { fixtureCommand } from '../harness/upstreams';
import { until } from '../harness/wait';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-grep-'));
let daemon: ChildProcess | undefined;
after(async () => {
  if (daemon && daemon.exitCode === null) {
    daemon.kill('SIGKILL');
    await new Promise((r) => daemon!.once('exit', r));
  }
  rmSync(dir, { recursive: true, force: true });
});

const SECRETS = {
  userinfo: 'pw-userinfo-7f3a91c2',
  query: 'tok-query-b81d44e0',
  bearer: 'bear-header-5c2e9a17',
  env: 'env-apikey-d0e6f3b8',
  authQuery: 'authq-value-9a8b7c6d',
  envFile: 'envfile-token-3e5f7a9c',
};

function files(root: string): string[] {
  return readdirSync(root).flatMap((n) => {
    const p = join(root, n);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

test('no configured secret, and the endpoint secret only where it belongs, in anything a full run wrote', async () => {
  // The upstream prints its secret env to stderr, which mcpx logs per server: the log must mask it.
  const {
    command,
    args: [fixture],
  } = fixtureCommand([]);
  const print = `process.stderr.write('API_KEY=' + process.env.API_KEY + ' FILE_TOKEN=' + process.env.FILE_TOKEN + '\\n'); process.argv.splice(1, 0, 'fixture'); require(${JSON.stringify(fixture)})`;
  const args = ['-e', print, '--', '--rev', '2025-11-25', '--name', 'leaky'];
  const envFile = join(dir, 'leaky.env');
  writeFileSync(envFile, `# the upstream's token\nexport FILE_TOKEN="${SECRETS.envFile}"\n`);
  const config = join(dir, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      servers: {
        leaky: { command, args, env: { API_KEY: SECRETS.env }, envFile },
        far: { type: 'http', url: `http://someone:${SECRETS.userinfo}@127.0.0.1:9/mcp?token=${SECRETS.query}&v=1` },
        hdr: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: `Bearer ${SECRETS.bearer}` } },
        q: {
          type: 'http',
          url: 'http://127.0.0.1:9/mcp',
          auth: { type: 'query', name: 'key', value: SECRETS.authQuery },
        },
      },
    }),
  );
  const state = join(dir, 'state');
  daemon = spawn(
    process.execPath,
    [
      join(repoRoot(), 'dist', 'cli.js'),
      'daemon',
      '--port',
      '0',
      '--config',
      config,
      '--set',
      'activity.arguments=full',
    ],
    {
      env: { ...process.env, XDG_STATE_HOME: state, XDG_CONFIG_HOME: dir, MCPX_PORT: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  daemon.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const lines = createInterface({ input: daemon.stdout! });
  lines.on('line', (l) => {
    stdout += `${l}\n`;
  });
  const first = await new Promise<string>((resolve) => lines.once('line', resolve));
  const url = /listening on (http:\/\/\S+)/.exec(first)?.[1];
  assert.ok(url, first);
  const endpointSecret = /\/mcp\/([A-Za-z0-9_-]+)$/.exec(url)![1]!;

  const answers: string[] = [];
  const call = async (name: string, a: unknown) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: answers.length + 1,
        method: 'tools/call',
        params: { name, arguments: a },
      }),
    });
    answers.push(await res.text());
  };
  await call('mcpx_call', { server: 'leaky', tool: 'echo', arguments: { text: 'hi' } });
  for (const server of ['far', 'hdr', 'q']) await call('mcpx_call', { server, tool: 'x', arguments: {} });
  // An agent quoting every configured secret in its arguments: the activity log masks each.
  await call('mcpx_call', { server: 'leaky', tool: 'fail', arguments: { quoted: Object.values(SECRETS) } });
  // An agent passing the gateway on: its URL and its Bearer header, as arguments.
  await call('mcpx_call', {
    server: 'leaky',
    tool: 'fail',
    arguments: { gateway: url, headers: { Authorization: `Bearer ${endpointSecret}` } },
  });
  await call('mcpx_servers', {});
  await call('mcpx_tools', {});
  // What the upstream printed reaches the log asynchronously: its env line.
  await until(() => /API_KEY=\S+ FILE_TOKEN=/.test(stderr), { what: "the upstream's env line in the daemon's log" });
  // The log as a client reads it: GET /v1/activity and `mcpx activity`.
  const api = await fetch(new URL('/v1/activity', url), { headers: { Authorization: `Bearer ${endpointSecret}` } });
  const read = await api.text();
  assert.match(read, /"gateway"/, 'the quoting call is in /v1/activity');
  const cli = execFileSync(process.execPath, [join(repoRoot(), 'dist', 'cli.js'), 'activity', '--json'], {
    env: { ...process.env, XDG_STATE_HOME: state, XDG_CONFIG_HOME: dir, MCPX_PORT: '' },
    encoding: 'utf8',
  });
  assert.match(cli, /"gateway"/, 'the quoting call is in mcpx activity');
  daemon.kill('SIGTERM');
  await new Promise((r) => daemon!.once('exit', r));

  assert.match(answers[0]!, /hi/, `the stdio upstream ran: ${answers[0]} ${stderr.slice(-500)}`);
  assert.match(answers.slice(1, 4).join('\n'), /127\.0\.0\.1:9/, 'errors still name where the servers are');
  assert.match(stderr, /API_KEY=\S+ FILE_TOKEN=/, 'the upstream printed its env (masked) to the log');
  const written: Array<[string, string]> = [
    ['stdout', stdout.replace(first, '')],
    ['stderr', stderr],
    ...answers.map((a, i): [string, string] => [`answer ${i + 1}`, a]),
    ['GET /v1/activity', read],
    ['mcpx activity --json', cli],
    ...files(state)
      .filter((f) => !f.endsWith('endpoint-secret'))
      .map((f): [string, string] => [f, readFileSync(f, 'utf8')]),
  ];
  for (const [where, text] of written) {
    for (const [kind, secret] of Object.entries(SECRETS))
      assert.ok(!text.includes(secret), `the ${kind} secret is in ${where}`);
    assert.ok(!text.includes(endpointSecret), `the endpoint secret is in ${where}`);
  }
  assert.equal(readFileSync(join(state, 'mcpx', 'endpoint-secret'), 'utf8').trim(), endpointSecret);
  // The activity log is owner-only, and holds the quoting call's arguments with every secret masked.
  const activityFiles = files(state).filter((x) => x.includes(join('mcpx', 'activity')));
  assert.ok(activityFiles.length > 0, 'the daemon wrote its activity log');
  for (const f of activityFiles) assert.equal(statSync(f).mode & 0o777, 0o600, f);
  const logged = activityFiles.map((f) => readFileSync(f, 'utf8')).join('');
  assert.match(logged, /"quoted":\["\*\*\*","\*\*\*"/, logged);
  assert.match(logged, /"gateway":"http:\/\/127\.0\.0\.1:\d+\/mcp\/\*\*\*"/, 'the endpoint secret masked in the URL');
  assert.match(logged, /"Authorization":"Bearer \*\*\*"/, 'and in the header');
});
