// The settings registry: sources in order, env names, refusals that list the valid values.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Settings, envLayer, envName, parseDuration } from '../../src/config/settings';
import { parseConfig } from '../../src/config/file';

describe('settings', () => {
  test('defaults in one place, and later sources win', () => {
    const s = new Settings([
      { source: 'config', values: { 'pool.callTimeout': '30s', 'mcp.pageSize': 10 } },
      { source: 'env', values: envLayer({ MCPX_POOL_CALL_TIMEOUT: '1m', MCPX_MCP_PASSTHROUGH: 'a, b' }) },
      { source: 'flag', values: { 'mcp.pageSize': '5' } },
    ]);
    assert.deepEqual(s.resolved('pool.callTimeout'), { value: 60_000, source: 'env' });
    assert.deepEqual(s.resolved('mcp.pageSize'), { value: 5, source: 'flag' });
    assert.deepEqual(s.resolved('mcp.passthrough'), { value: ['a', 'b'], source: 'env' });
    assert.deepEqual(s.resolved('protoMessages.listMaxAge'), { value: 60_000, source: 'default' });
    assert.equal(s.duration('proto.askTimeout'), 600_000);
  });

  test('env names follow the keys; --mcp-spec has the alias MCPX_MCP_SPEC', () => {
    assert.equal(envName('transport.sseKeepAlive'), 'MCPX_TRANSPORT_SSE_KEEP_ALIVE');
    assert.equal(envName('mcp.passthrough'), 'MCPX_MCP_PASSTHROUGH');
    assert.deepEqual(envLayer({ MCPX_MCP_SPEC: '2025-06-18' }), { 'spec.first': '2025-06-18' });
  });

  test('an unknown revision is refused with the list of valid ones, in every revision setting', () => {
    for (const [key, v] of [
      ['spec.precedence', '2025-13-01'],
      ['spec.lenient', ['2024-11-05', 'draft']],
      ['spec.first', 'latest'],
    ] as const) {
      assert.throws(
        () => new Settings([{ source: 'flag', values: { [key]: v } }]),
        (e: Error) => {
          assert.match(e.message, new RegExp(`^${key.replace('.', '\\.')}: unknown revision`));
          assert.match(e.message, /valid revisions: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28/);
          return true;
        },
      );
    }
  });

  test('bad values and unknown keys are named', () => {
    assert.throws(
      () => new Settings([{ source: 'flag', values: { 'pool.callTimeout': 'soon' } }]),
      /pool\.callTimeout: expected a duration/,
    );
    assert.throws(() => new Settings([{ source: 'flag', values: { 'pool.nope': 1 } }]), /pool\.nope: unknown setting/);
    assert.throws(() => new Settings([{ source: 'flag', values: { 'proto.askRounds': 0 } }]), /at least 1/);
    assert.equal(parseDuration('1.5s'), 1500);
    assert.equal(parseDuration('250'), 250);
  });
});

describe('config file', () => {
  test('a bad server names its exact path; the other servers still load; substitution applies', () => {
    const c = parseConfig(
      {
        servers: {
          github: { type: 'stdio', command: 42 },
          ok: { command: 'node', args: ['${workspaceFolder}/s.js'], env: { T: '${env:TOKEN}' } },
          web: { type: 'http', url: 'http://127.0.0.1:1/mcp', auth: { type: 'oauth', scopes: ['read'] } },
          local: { command: 'node', auth: { type: 'oauth' } },
          typo: { url: 'http://127.0.0.1:3/mcp', auth: { type: 'oauth', clientID: 'x' } },
          remote: { url: 'http://127.0.0.1:2/mcp', headers: { A: 'b' } },
        },
        mcpServers: { claude: { command: 'x' } },
        settings: { 'mcp.pageSize': 3 },
      },
      'test',
      { env: { TOKEN: 't0k' }, workspaceFolder: '/ws' },
    );
    assert.deepEqual(
      c.issues.map((i) => `${i.path}: ${i.message}`),
      [
        'servers.github.command: expected string, received number',
        'servers.local.auth.type: oauth applies to an HTTP server (url), not a stdio one',
        "servers.typo.auth: unrecognized key(s) in object: 'clientid'",
      ],
    );
    assert.deepEqual(
      c.servers.map((s) => `${s.name}:${s.type}`),
      ['ok:stdio', 'web:http', 'remote:http', 'claude:stdio'],
    );
    const ok = c.servers[0]!;
    assert.equal(ok.type === 'stdio' && ok.args[0], '/ws/s.js');
    assert.equal(ok.type === 'stdio' && ok.env.T, 't0k');
    assert.deepEqual(c.settings, { 'mcp.pageSize': 3 });
  });
});

describe("the editor's server sources (mcpx.servers, then .vscode/mcp.json)", () => {
  test('the workspace wins a clash and says so; a bad entry names its file and path, the rest load; untrusted workspace stdio servers are held back', async () => {
    const { mergeSources } = await import('../../src/config/merge');
    const user = {
      label: 'settings (mcpx.servers)',
      workspace: false,
      value: { servers: { a: { command: 'user-a' }, b: { type: 'http', url: 'http://127.0.0.1:1/mcp' } } },
    };
    const ws = {
      label: '/w/.vscode/mcp.json',
      workspace: true,
      value: {
        servers: {
          a: { command: 'ws-a' },
          bad: { type: 'stdio', command: 7 },
          web: { type: 'http', url: 'http://127.0.0.1:2/mcp' },
        },
      },
    };
    const trusted = mergeSources([user, ws], { env: {}, trusted: true });
    assert.deepEqual(trusted.config.servers.map((s) => s.name).sort(), ['a', 'b', 'web']);
    assert.equal((trusted.config.servers.find((s) => s.name === 'a') as { command: string }).command, 'ws-a');
    assert.deepEqual(trusted.clashes, [
      'server "a" is defined in settings (mcpx.servers) and in /w/.vscode/mcp.json; the one in /w/.vscode/mcp.json is used',
    ]);
    assert.equal(trusted.problems.length, 1);
    assert.match(trusted.problems[0]!, /^\/w\/\.vscode\/mcp\.json: servers\.bad\.command: /);
    const untrusted = mergeSources([user, ws], { env: {}, trusted: false });
    assert.deepEqual(untrusted.untrusted, ['a']);
    assert.deepEqual(untrusted.config.servers.map((s) => s.name).sort(), ['a', 'b', 'web']);
    assert.equal(
      (untrusted.config.servers.find((s) => s.name === 'a') as { command: string }).command,
      'user-a',
      "the workspace's stdio server is not spawned; the user's own definition stays",
    );
  });
});

describe("the editor's sources and mcpx's own skills", () => {
  test("a workspace's skills block is taken once the workspace is trusted; a server named mcpx beside it is a problem", async () => {
    const { mergeSources } = await import('../../src/config/merge');
    const user = { label: 'settings (mcpx.servers)', workspace: false, value: { servers: { mcpx: { command: 'x' } } } };
    const ws = {
      label: '/w/.vscode/mcp.json',
      workspace: true,
      value: {
        servers: {},
        skills: ['/w/.skills'],
        profiles: { p: { servers: { mcpx: { skills: ['a*'] } }, mode: 'passthrough' } },
      },
    };
    const trusted = mergeSources([user, ws], { env: {}, trusted: true });
    assert.deepEqual(trusted.config.skills, { dirs: ['/w/.skills'] });
    assert.deepEqual(trusted.problems, [
      `settings (mcpx.servers): servers.mcpx: "mcpx" names mcpx's own skills (the skills block); choose another name for this server`,
    ]);
    assert.ok(trusted.config.profiles?.get('p'), 'a profile may name mcpx beside a skills block');
    const untrusted = mergeSources([ws], { env: {}, trusted: false });
    assert.equal(untrusted.config.skills, undefined, "an untrusted workspace's directories are not served");
    assert.deepEqual(untrusted.problems, [
      '/w/.vscode/mcp.json: profiles.p.servers.mcpx: no server named "mcpx" is configured',
    ]);
  });
});

describe('${secret:NAME} in server definitions', () => {
  test('resolved from the given secrets; a missing one is an issue naming the field; headless it is an unknown variable', async () => {
    const { parseConfig, secretNames } = await import('../../src/config/file');
    const value = {
      servers: {
        gh: { type: 'http', url: 'http://127.0.0.1:1/mcp', auth: { type: 'bearer', token: '${secret:gh-token}' } },
        other: { type: 'http', url: 'http://127.0.0.1:2/mcp', headers: { 'X-Key': '${secret:missing}' } },
      },
    };
    assert.deepEqual(secretNames(value).sort(), ['gh-token', 'missing']);
    const c = parseConfig(value, 'test', { env: {}, secrets: { 'gh-token': 's3cr3t' } });
    assert.equal((c.servers.find((s) => s.name === 'gh') as { auth: { token: string } }).auth.token, 's3cr3t');
    assert.deepEqual(c.issues, [
      { path: 'servers.other.headers.X-Key', message: 'no secret named "missing" is stored (mcpx: Set Secret…)' },
    ]);
    assert.ok(!JSON.stringify(c.issues).includes('s3cr3t'));
    const headless = parseConfig(value, 'test', { env: {} });
    assert.ok(headless.issues.some((i) => /unknown variable \$\{secret:gh-token\}/.test(i.message)));
  });
});
