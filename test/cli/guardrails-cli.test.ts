// The guardrails on the command line (docs/gateway.md "Guardrails"). `mcpx guardrails check`: a text
// screened by a config file's rules — each finding and the verdict, never the text found; exit 1 when it
// would be blocked, 0 otherwise; --text the text as it would pass; --on, --server, --tool and --profile
// choosing the rules; a bad rule refused with its path, a bad --on with the usage. And headless `ask`: a
// daemon holds a result for the person at the broker, `mcpx elicit` lists what was found (never the text)
// and its answer blocks the result or passes it on.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { cliJs } from '../harness/gateway';
import { startDaemon } from '../harness/paths';
import { fixtureCommand } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { MUST_NOT_LEAK, PII_TEXT, SECRETS, SECRETS_TEXT, TAINTED_DESCRIPTION } from '../fixtures/upstream/tainted';
import { until } from '../harness/wait';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-guardrails-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const config = join(dir, 'mcp.json');
writeFileSync(
  config,
  JSON.stringify({
    servers: { crm: { command: 'true' } },
    guardrails: {
      detectors: { 'employee-id': { pattern: 'EMP-[0-9]{6}' } },
      rules: [
        { detect: 'secrets', action: 'redact' },
        { detect: 'pii', server: 'crm', action: 'block' },
        { detect: 'pii', action: 'log' },
        { detect: 'injection', on: ['descriptions'], action: 'redact' },
        { detect: 'employee-id', tool: 'hr_*', action: 'block' },
      ],
    },
    profiles: {
      strict: {
        servers: ['crm'],
        mode: 'passthrough',
        guardrails: { rules: [{ detect: 'secrets', action: 'block' }] },
      },
    },
  }),
);

function mcpx(args: string[], stdin = ''): Promise<{ code: number | null; out: string; err: string }> {
  const env = { ...process.env, XDG_STATE_HOME: dir, XDG_CONFIG_HOME: dir };
  const p = spawn(process.execPath, [cliJs(), ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  p.stdout.on('data', (d: Buffer) => (out += d.toString()));
  p.stderr.on('data', (d: Buffer) => (err += d.toString()));
  p.stdin.end(stdin);
  return new Promise((resolve) => p.on('close', (code) => resolve({ code, out, err })));
}

const check = (args: string[], stdin?: string) => mcpx(['guardrails', 'check', '--config', config, ...args], stdin);

describe('mcpx guardrails check', { timeout: 60_000 }, () => {
  test('secrets found and redacted: each finding and the verdict, exit 0, nothing of a secret printed', async () => {
    const file = join(dir, 'secrets.txt');
    writeFileSync(file, SECRETS_TEXT);
    const r = await check([file]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^secrets\/aws ×2 {2}redact {2}\(guardrails\.rules\[0\]\)$/m);
    assert.match(r.out, /^secrets\/privatekey {2}redact/m);
    assert.match(r.out, /^verdict: redact$/m);
    for (const s of MUST_NOT_LEAK) assert.ok(!r.out.includes(s) && !r.err.includes(s), s);
    const text = await check([file, '--text']);
    assert.match(text.out, /^The deploy user's key id is \[redacted:secrets\/aws\]\.$/m);
    for (const s of MUST_NOT_LEAK) assert.ok(!text.out.includes(s), s);
  });

  test('stdin; a rule of one server blocks there (exit 1) and only logs elsewhere (exit 0)', async () => {
    const blocked = await check(['--server', 'crm'], PII_TEXT);
    assert.equal(blocked.code, 1);
    assert.match(blocked.out, /^pii\/card {2}block {2}\(guardrails\.rules\[1\]\)$/m);
    assert.match(blocked.out, /^verdict: block$/m);
    const logged = await check(['-', '--server', 'files'], PII_TEXT);
    assert.equal(logged.code, 0);
    assert.match(logged.out, /^verdict: log$/m);
  });

  test("--on descriptions: a tainted description's hidden characters; a person's detector by tool; a profile's rules too", async () => {
    const d = await check(['--on', 'descriptions', '--text'], TAINTED_DESCRIPTION);
    assert.equal(d.out, 'Looks up the weather.[redacted:injection/unicode-tags]');
    assert.equal((await check(['--tool', 'hr_lookup'], 'see EMP-123456')).code, 1);
    assert.match((await check(['--tool', 'wiki'], 'see EMP-123456')).out, /^verdict: pass \(nothing found\)$/m);
    const strict = await check(['--profile', 'strict'], SECRETS_TEXT);
    assert.equal(strict.code, 1);
    assert.match(strict.out, /^secrets\/github {2}block {2}\(profiles\.strict\.guardrails\.rules\[0\]\)$/m);
    const none = await check(['--on', 'arguments'], SECRETS_TEXT);
    assert.equal(none.code, 0);
    assert.match(none.out, /^no rule of .* screens arguments/);
  });

  test('a bad rule is reported with its path; a bad --on is refused with the usage (exit 2)', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ guardrails: { rules: [{ detect: 'nope', action: 'redact' }] } }));
    const r = await mcpx(['guardrails', 'check', '--config', bad], 'text');
    assert.match(r.err, /guardrails\.rules\.0\.detect: no detector named "nope"/);
    const on = await check(['--on', 'everything'], 'x');
    assert.equal(on.code, 2);
    assert.match(on.err, /--on: expected results, descriptions, arguments/);
    assert.match(on.err, /mcpx guardrails check \[FILE\|-\]/);
  });
});

describe('ask, headless', { timeout: 90_000 }, () => {
  test('the result waits at the broker; mcpx elicit shows what was found, never the text; deny blocks it, allow passes it on', async () => {
    const d = await startDaemon({
      servers: { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up', '--tainted']) },
      settings: { 'mcp.passthrough': ['up'] },
      config: { guardrails: { rules: [{ detect: 'secrets', action: 'ask' }] } },
    });
    try {
      const env = d.env;
      const elicit = (args: string[]) =>
        new Promise<{ code: number | null; out: string }>((resolve) => {
          const p = spawn(process.execPath, [cliJs(), 'elicit', ...args, '--endpoint', d.endpoint], { env });
          let out = '';
          p.stdout.on('data', (b: Buffer) => (out += b.toString()));
          p.stderr.on('data', (b: Buffer) => (out += b.toString()));
          p.on('close', (code) => resolve({ code, out }));
        });
      const c = new HttpClient(d.endpoint, '2025-11-25');
      await c.initialize();
      const call = () => c.request('tools/call', { name: 'leak_secrets', arguments: {} }).then((x) => x.result as Json);
      const asked = async (): Promise<string> => {
        const m = await until(async () => /^(\S+) {2}up {2}mcpx\/approval {2}(.*)$/m.exec((await elicit([])).out), {
          what: 'the approval listed',
          every: 25,
        });
        return m[0]!;
      };
      const pending = call();
      const line = await asked();
      assert.match(line, /pass on the result \(up\/leak_secrets\)\? Guardrails found secrets\/aws, secrets\/github/);
      for (const s of MUST_NOT_LEAK) assert.ok(!line.includes(s), s);
      const id = line.split('  ')[0]!;
      assert.equal((await elicit(['answer', id, 'deny'])).code, 0);
      const blocked = await pending;
      assert.equal(blocked.isError, true);
      assert.match(JSON.stringify(blocked), /blocked the result of up\/leak_secrets: .* and the person blocked it/);
      const again = call();
      const second = (await asked()).split('  ')[0]!;
      assert.equal((await elicit(['answer', second, 'allow'])).code, 0);
      assert.ok(JSON.stringify(await again).includes(SECRETS.github.secret), 'let through as it is');
    } finally {
      await d.stop();
    }
  });
});
