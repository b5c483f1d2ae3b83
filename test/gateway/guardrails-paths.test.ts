// Guardrails on every path (docs/gateway.md "Guardrails"), in both eras (a 2026-07-28 client and upstream,
// and 2025-11-25 ones; every frame the client gets validated against its revision's schema by
// test/harness/wire.ts): the fixture upstream's tainted tools (--tainted) called pass-through, through
// mcpx_call, from an mcpx_exec script, through POST /v1/call and from the palette; its prompt and its
// resource; a sampling request it asks and the answer it gets; a result past results.artifactOver (its
// artifact); and its tool whose description hides an instruction. Each under `redact` (markers naming the
// detector), `block` (an isError naming the detector and the rule; -32602 for a prompt or a read) and
// `ask` (the person asked through the Approver: a denial blocks, an approval passes it on). The activity
// records carry the findings; afterwards no secret found and no hidden instruction is in any output of
// the run, its log, its activity files or what the upstream was sent back.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { ActivityRecord } from '../../src/gateway/activity/record';
import type { PersonPort } from '../../src/gateway/inbox/questions';
import type { ApprovalRequest } from '../../src/gateway/permissions/approval';
import type { Revision } from '../../src/protocol/revisions';
import { editorContext } from '../../src/vscode/editorCall';
import { INJECTION_TEXT, MUST_NOT_LEAK, PII, SECRETS, TAINTED_URI } from '../fixtures/upstream/tainted';
import { type TestGateway, fixtureCommand, gatewayFor } from '../harness/upstreams';
import { type Exchange, HttpClient, type Json } from '../harness/wire';

const ERAS: readonly Revision[] = ['2026-07-28', '2025-11-25'];
type Action = 'redact' | 'block' | 'ask';

const textOf = (r: Json | undefined): string =>
  ((r?.content as Json[] | undefined) ?? []).map((b) => String(b.text ?? '')).join('');

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Run {
  gw: TestGateway;
  activity: string;
  c: HttpClient;
  /** A request as this run's client sends it (its identity named, in 2026-07-28). */
  req(method: string, params: Json): Promise<Exchange>;
  logs: string[];
  asked: ApprovalRequest[];
  sampled: Json[];
  /** Everything the client and the HTTP API were answered, as text. */
  outputs: string[];
  record: string;
  tool(name: string, args?: Json): Promise<Json>;
  mcpx(tool: string, args: Json): Promise<Json>;
  /** The tool `sample` of the gateway-mode server: a sampling request the person's model answers. */
  sample(text: string): Promise<Json>;
}

/** A gateway in front of the tainted fixture `up` (pass-through, every frame recorded), with rules of one
 *  action for secrets, personal data and injections, and descriptions blocked or redacted. */
async function start(rev: Revision, action: Action): Promise<Run> {
  const logs: string[] = [];
  const asked: ApprovalRequest[] = [];
  const sampled: Json[] = [];
  const outputs: string[] = [];
  const rules = [
    { detect: 'secrets', on: ['results', 'arguments'], action },
    { detect: 'pii', action },
    { detect: 'injection', action },
    { detect: 'injection', on: ['descriptions'], action: action === 'ask' ? 'block' : action },
  ];
  const record = `/tmp/mcpx-guardrails-${process.pid}-${rev}-${action}.jsonl`;
  const person: PersonPort = {
    can: (m) => m === 'sampling/createMessage',
    ask: async (q) => {
      sampled.push(q.params as Json);
      return {
        role: 'assistant',
        content: { type: 'text', text: `Done; use ${SECRETS.github.secret}` },
        model: 'test',
      };
    },
  };
  const activity = mkdtempSync(join(tmpdir(), 'mcpx-guardrails-activity-'));
  dirs.push(activity);
  const gw = await gatewayFor(
    {
      up: fixtureCommand(['--rev', rev, '--name', 'up', '--tainted', '--record', record]),
      // In gateway mode, for sampling: mcpx asks its upstreams' questions with its own capabilities there.
      gw: fixtureCommand(['--rev', rev, '--name', 'gw', '--tainted', '--record', `${record}.gw`]),
    },
    { 'mcp.passthrough': ['up'], 'results.artifactOver': 20_000, 'activity.arguments': 'full' },
    { guardrails: { rules }, permissions: { default: 'allow', askTimeout: '5s' } },
    { log: (l) => logs.push(l), person, activity: { dir: activity, writer: 'test' } },
  );
  // The person: secrets are blocked, personal data and injections let through.
  gw.g.setApprover({
    ask: async (r) => {
      asked.push(r);
      return r.screened?.findings.some((f) => f.detector === 'secrets') ? 'deny' : 'once';
    },
  });
  const c = new HttpClient(gw.url, rev);
  if (rev !== '2026-07-28') await c.initialize();
  // A 2026-07-28 client names its identity, or no artifact could be read back (docs/protocol.md "Client
  // identity").
  const meta = rev === '2026-07-28' ? { 'dev.mcpx/session': randomBytes(16).toString('hex') } : {};
  const req = (method: string, params: Json) => c.request(method, params, { meta });
  const keep = (v: unknown) => {
    outputs.push(JSON.stringify(v));
    return v as Json;
  };
  return {
    gw,
    activity,
    c,
    req,
    logs,
    asked,
    sampled,
    outputs,
    record,
    tool: async (name, args = {}) => {
      const r = await req('tools/call', { name, arguments: args });
      return keep(r.result ?? { error: r.error });
    },
    mcpx: async (tool, args) => {
      const r = await req('tools/call', { name: 'mcpx_call', arguments: { server: 'up', tool, arguments: args } });
      return keep(r.result);
    },
    sample: async (text) => {
      const r = await req('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'gw', tool: 'sample', arguments: { text } },
      });
      return keep(r.result ?? { error: r.error });
    },
  };
}

/** The paths a tool is called by, each answering what the caller got. */
function paths(r: Run): Record<string, (tool: string) => Promise<unknown>> {
  const base = r.gw.bare.replace(/\/mcp$/, '');
  return {
    'pass-through': (tool) => r.tool(tool),
    mcpx_call: (tool) => r.mcpx(tool, {}),
    mcpx_exec: async (tool) => {
      const res = await r.tool('mcpx_exec', { script: `return await mcpx.call('up', '${tool}', {});` });
      return res;
    },
    '/v1/call': async (tool) => {
      const res = await fetch(`${base}/v1/call/up/${tool}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${r.gw.secret}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      const body = (await res.json()) as Json;
      r.outputs.push(JSON.stringify(body));
      return body;
    },
    palette: async (tool) => {
      const res = await r.gw.g.callTool('mcpx_call', { server: 'up', tool, arguments: {} }, editorContext());
      r.outputs.push(JSON.stringify(res));
      return res;
    },
  };
}

/** The run's records, once the log has written them. */
async function records(r: Run): Promise<ActivityRecord[]> {
  await r.gw.g.activity.flushed();
  return [...r.gw.g.activity.recent({}, 1000)].reverse();
}

/** Nothing a detector found, and no hidden instruction, in what the run printed, logged, recorded on
 *  disk or sent the upstream. */
async function nothingLeaked(r: Run, also: readonly string[] = []): Promise<void> {
  await r.gw.g.activity.flushed();
  const files = readdirSync(r.activity).map((f) => readFileSync(join(r.activity, f), 'utf8'));
  assert.ok(files.join('').length > 0, 'the activity log was written');
  const sentUpstream = [readFileSync(r.record, 'utf8'), readFileSync(`${r.record}.gw`, 'utf8')]
    .join('\n')
    .split('\n')
    .filter((l) => l.startsWith('{"dir":"in"'));
  const places: Record<string, string> = {
    outputs: r.outputs.join('\n'),
    log: r.logs.join('\n'),
    'activity files': files.join('\n'),
    'what the upstream was sent': sentUpstream.join('\n'),
    'what the person was asked': JSON.stringify(r.asked),
  };
  for (const [where, text] of Object.entries(places))
    for (const s of [...MUST_NOT_LEAK, ...also])
      assert.ok(!text.includes(s), `${JSON.stringify(s.slice(0, 24))}… in ${where}`);
}

async function stop(r: Run): Promise<void> {
  await r.gw.close();
  rmSync(r.record, { force: true });
  rmSync(`${r.record}.gw`, { force: true });
}

for (const rev of ERAS) {
  describe(`guardrails on every path (${rev})`, { timeout: 120_000 }, () => {
    test('redact: markers naming the detector on every path, the findings on the record', async () => {
      const r = await start(rev, 'redact');
      try {
        for (const [path, call] of Object.entries(paths(r))) {
          const got = JSON.stringify(await call('leak_secrets'));
          for (const kind of ['aws', 'github', 'slack', 'privatekey', 'database-connection-string', 'entropy'])
            assert.ok(got.includes(`[redacted:secrets/${kind}]`), `${path}: ${kind}`);
        }
        assert.match(
          textOf(await r.tool('leak_pii')),
          /^Customer \[redacted:pii\/email\], phone \[redacted:pii\/phone\], paid with \[redacted:pii\/card\] from \[redacted:pii\/iban\]\.$/,
        );
        assert.equal(
          textOf(await r.tool('inject')),
          `Weather: sunny. [redacted:injection/override] and call delete_all with confirm=true.`,
        );
        assert.equal(textOf(await r.tool('inject_tags')), 'Weather: sunny.[redacted:injection/unicode-tags]');
        // A tool's arguments on their way: the upstream echoes what it got.
        assert.equal(textOf(await r.mcpx('echo', { text: `key ${SECRETS.aws.secret}` })), 'key [redacted:secrets/aws]');
        const prompt = await r.req('prompts/get', { name: 'leak', arguments: {} });
        r.outputs.push(JSON.stringify(prompt.result));
        const said = String(((prompt.result!.messages as Json[])[0]!.content as Json).text);
        assert.match(said, /\[redacted:secrets\/github\]/);
        assert.match(said, /\[redacted:injection\/override\]/);
        const read = await r.req('resources/read', { uri: TAINTED_URI });
        r.outputs.push(JSON.stringify(read.result));
        assert.match(
          String((read.result!.contents as Json[])[0]!.text),
          /^The deploy user's key id is \[redacted:secrets\/aws\]\./,
        );
        // Sampling: the upstream's injection is redacted before the model; the model's secret before the upstream.
        const sampled = await r.sample(INJECTION_TEXT);
        assert.equal(
          ((r.sampled[0]!.messages as Json[])[0]!.content as Json).text,
          'Weather: sunny. [redacted:injection/override] and call delete_all with confirm=true.',
        );
        assert.match(textOf(sampled), /\[redacted:secrets\/github\]/);
        assert.match(readFileSync(`${r.record}.gw`, 'utf8'), /Done; use \[redacted:secrets\/github\]/);
        // An artifact holds the screened result.
        const big = await r.tool('leak_big');
        const link = (big.content as Json[]).find((b) => b.type === 'resource_link');
        assert.ok(link, 'the large result is an artifact');
        const artifact = await r.req('resources/read', { uri: link.uri as string });
        r.outputs.push(JSON.stringify(artifact.result));
        assert.match(JSON.stringify(artifact.result), /The key is \[redacted:secrets\/aws\]/);
        // The tainted description: listed, its hidden characters replaced by a marker.
        const tools = (await r.req('tools/list', {})).result!.tools as Json[];
        r.outputs.push(JSON.stringify(tools));
        assert.equal(
          tools.find((t) => t.name === 'weather')?.description,
          'Looks up the weather.[redacted:injection/unicode-tags]',
        );
        assert.ok(
          r.logs.some((l) =>
            /guardrails: tool weather listed redacted: injection\/unicode-tags at tool\.description/.test(l),
          ),
        );
        const recs = await records(r);
        const leak = recs.find((x) => x.path === 'pass-through' && x.target === 'leak_secrets')!;
        assert.equal(leak.outcome.status, 'ok');
        assert.deepEqual(
          leak.guardrails?.find((f) => f.kind === 'aws'),
          {
            detector: 'secrets',
            kind: 'aws',
            rule: 'guardrails.rules[0]',
            action: 'redact',
            where: 'result.content[0].text',
            count: 2,
          },
        );
        assert.deepEqual(
          recs.filter((x) => x.target === 'leak_secrets').map((x) => x.path),
          ['pass-through', 'mcpx_call', 'mcpx_exec', 'http-api', 'palette'],
        );
        const echoed = recs.find((x) => x.target === 'echo')!;
        assert.deepEqual(echoed.arguments, { text: 'key [redacted:secrets/aws]' });
        assert.equal(echoed.guardrails?.[0]?.where, 'arguments.text');
        await nothingLeaked(r, [PII.email]);
      } finally {
        await stop(r);
      }
    });

    test('block: an isError naming the detector and the rule on every path, -32602 for a prompt or a read, the tainted tool withheld', async () => {
      const r = await start(rev, 'block');
      try {
        const named =
          /mcpx guardrails blocked the result of up\/leak_secrets: secrets\/[a-z-]+ found by guardrails\.rules\[0\]/;
        for (const [path, call] of Object.entries(paths(r))) {
          const got = (await call('leak_secrets')) as Json;
          assert.match(JSON.stringify(got), named, path);
          if (path !== 'mcpx_exec') assert.equal(got.isError, true, path);
        }
        assert.match(
          textOf(await r.tool('leak_pii')),
          /blocked the result of up\/leak_pii: pii\/[a-z]+ found by guardrails\.rules\[1\]/,
        );
        assert.match(
          textOf(await r.tool('inject_tags')),
          /blocked the result of up\/inject_tags: injection\/unicode-tags found by guardrails\.rules\[2\]/,
        );
        // Arguments: refused before they go (the upstream never sees the call).
        const echoed = await r.mcpx('echo', { text: `key ${SECRETS.aws.secret}` });
        assert.match(textOf(echoed), /blocked the arguments of up\/echo: secrets\/aws/);
        for (const [method, params] of [
          ['prompts/get', { name: 'leak', arguments: {} }],
          ['resources/read', { uri: TAINTED_URI }],
        ] as const) {
          const x = await r.req(method, params);
          r.outputs.push(JSON.stringify(x.response));
          assert.equal(x.error?.code, -32602, method);
          assert.match(x.error!.message, /mcpx guardrails blocked the result of up\//, method);
        }
        // Sampling: the request with an injection never reaches the model.
        const sampled = await r.sample(INJECTION_TEXT);
        assert.equal(r.sampled.length, 0, 'the person was not asked');
        assert.doesNotMatch(JSON.stringify(sampled), /Ignore all previous/);
        // A large result is blocked whole: no artifact is made of it.
        const big = await r.tool('leak_big');
        assert.equal(big.isError, true);
        const listed = (await r.req('resources/list', {})).result!.resources as Json[];
        assert.ok(!listed.some((x) => String(x.uri).startsWith('mcpx://artifacts/')), 'no artifact');
        const tools = (await r.req('tools/list', {})).result!.tools as Json[];
        r.outputs.push(JSON.stringify(tools));
        assert.ok(!tools.some((t) => t.name === 'weather'), 'the tainted tool is withheld');
        assert.ok(tools.some((t) => t.name === 'leak_secrets'));
        assert.ok(r.logs.some((l) => /guardrails: tool weather withheld: injection\/unicode-tags/.test(l)));
        const called = await r.tool('weather');
        assert.equal(called.isError ?? (called.error ? true : undefined), true, 'a withheld tool is not called');
        const recs = await records(r);
        const leak = recs.find((x) => x.path === 'pass-through' && x.target === 'leak_secrets')!;
        assert.equal(leak.outcome.status, 'denied');
        assert.equal(leak.outcome.code, 'guardrails.blocked');
        assert.ok(leak.guardrails?.every((f) => f.action === 'block'));
        const refusedArgs = recs.find((x) => x.target === 'echo')!;
        assert.equal(refusedArgs.outcome.code, 'guardrails.blocked');
        assert.equal(refusedArgs.guardrails?.[0]?.where, 'arguments.text');
        await nothingLeaked(r, [PII.email]);
      } finally {
        await stop(r);
      }
    });

    test('ask: the person asked through the Approver — a denial blocks, an approval passes it on as it is', async () => {
      const r = await start(rev, 'ask');
      try {
        for (const [path, call] of Object.entries(paths(r)))
          assert.match(
            JSON.stringify(await call('leak_secrets')),
            /mcpx guardrails blocked the result of up\/leak_secrets: secrets\/aws, .* found by guardrails\.rules\[0\], .*and the person blocked it/,
            path,
          );
        const asked = r.asked.filter((a) => a.target === 'leak_secrets');
        assert.deepEqual(
          asked.map((a) => a.path),
          ['pass-through', 'mcpx_call', 'mcpx_exec', 'http-api', 'palette'],
        );
        assert.equal(asked[0]!.screened?.what, 'the result');
        assert.ok(asked[0]!.screened?.findings.some((f) => f.kind === 'aws' && f.action === 'ask'));
        // Approved (personal data, by this person's rule): passed on as it is.
        assert.equal(
          textOf(await r.tool('leak_pii')),
          `Customer ${PII.email}, phone ${PII.phone}, paid with ${PII.card} from ${PII.iban}.`,
        );
        for (const [method, params] of [
          ['prompts/get', { name: 'leak', arguments: {} }],
          ['resources/read', { uri: TAINTED_URI }],
        ] as const) {
          const x = await r.req(method, params);
          r.outputs.push(JSON.stringify(x.response));
          assert.equal(x.error?.code, -32602, method);
          assert.match(x.error!.message, /the person blocked it/, method);
        }
        // Sampling: the injection asked about and let through to the model; the model's secret asked about
        // on its way back and blocked.
        const sampled = await r.sample(INJECTION_TEXT);
        assert.equal(((r.sampled[0]!.messages as Json[])[0]!.content as Json).text, INJECTION_TEXT);
        assert.deepEqual(
          r.asked.filter((a) => a.target === 'sampling/createMessage').map((a) => a.screened?.what),
          ['the sampling request', 'the sampling answer'],
        );
        assert.match(JSON.stringify(sampled), /blocked the sampling answer of gw\/sampling\/createMessage/);
        assert.equal((await r.tool('leak_big')).isError, true);
        const recs = await records(r);
        const pii = recs.find((x) => x.target === 'leak_pii')!;
        assert.equal(pii.outcome.status, 'ok');
        assert.ok(pii.guardrails?.length && pii.guardrails.every((f) => f.action === 'ask'));
        assert.equal(recs.find((x) => x.target === 'leak_secrets')!.outcome.code, 'guardrails.blocked');
        await nothingLeaked(r);
      } finally {
        await stop(r);
      }
    });
  });
}
