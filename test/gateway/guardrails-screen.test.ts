// The guardrails engine and its block (docs/gateway.md "Guardrails"): a bad rule refused with its path;
// which rules apply to what (none: no plan, nothing runs); the first rule per finding, and the stricter of
// a profile's and the top level's; redaction markers naming the detector, leaf by leaf, the message never
// edited in place; findings that name the detector, kind, rule, action and place but never the text; and
// an external analyzer speaking Presidio's API on a local HTTP service — its findings, its timeout failing
// open and failing closed, and its other failures.
import assert from 'node:assert/strict';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type Guardrails, parseGuardrails } from '../../src/config/guardrails';
import { Screen } from '../../src/guardrails/screen';
import { PII, PII_TEXT, SECRETS, SECRETS_TEXT, TAGGED_TEXT } from '../fixtures/upstream/tainted';

const block = (raw: unknown, at?: string, shared?: Guardrails['detectors']): Guardrails => {
  const { guardrails, issues } = parseGuardrails(raw, at, shared);
  assert.deepEqual(issues, []);
  return guardrails!;
};
const result = (text: string) => ({ content: [{ type: 'text', text }] });
const on = { on: 'results', server: 'files', target: 'read' } as const;

describe('the guardrails block', () => {
  test('each bad rule and detector refused with its path', () => {
    const issues = (raw: unknown) => parseGuardrails(raw).issues;
    assert.deepEqual(
      issues({ rules: [{ detect: 'nope', action: 'block' }] }).map((i) => i.path),
      ['guardrails.rules.0.detect'],
    );
    assert.deepEqual(
      issues({ rules: [{ detect: 'pii', action: 'shred' }] }).map((i) => i.path),
      ['guardrails.rules.0.action'],
    );
    assert.deepEqual(
      issues({ rules: [{ detect: 'pii', on: ['descriptions'], action: 'ask' }] }).map((i) => i.path),
      ['guardrails.rules.0.action'],
    );
    assert.deepEqual(
      issues({ rules: [{ detect: 'pii', on: [], action: 'log' }] }).map((i) => i.path),
      ['guardrails.rules.0.on'],
    );
    assert.deepEqual(
      issues({ rules: [{ detect: 'pii', action: 'log', extra: 1 }] }).map((i) => i.path),
      ['guardrails.rules.0'],
    );
    const backref = issues({ detectors: { twice: { pattern: '(a)\\1' } } });
    assert.deepEqual(
      backref.map((i) => i.path),
      ['guardrails.detectors.twice.pattern'],
    );
    assert.match(backref[0]!.message, /re2/i);
    assert.deepEqual(
      issues({ detectors: { far: { url: 'http://127.0.0.1:1/analyze' } } }).map((i) => i.path),
      ['guardrails.detectors.far.failure'],
    );
    assert.deepEqual(
      issues({ detectors: { far: { url: 'file:///etc/passwd', failure: 'open' } } }).map((i) => i.path),
      ['guardrails.detectors.far.url'],
    );
    assert.deepEqual(
      issues({ detectors: { far: { url: 'http://127.0.0.1:1/', failure: 'open', timeout: '2h' } } }).map((i) => i.path),
      ['guardrails.detectors.far.timeout'],
    );
    assert.deepEqual(
      issues({ detectors: { secrets: { pattern: 'x' } } }).map((i) => i.path),
      ['guardrails.detectors.secrets'],
    );
    assert.deepEqual(
      issues({ detectors: { Bad_Name: { pattern: 'x' } } }).map((i) => i.path),
      ['guardrails.detectors.Bad_Name'],
    );
  });

  test("a profile's rules may name the top level's detectors; rule ids say where they were written", () => {
    const top = block({ detectors: { emp: { pattern: 'EMP-[0-9]+' } } });
    const p = block({ rules: [{ detect: 'emp', action: 'redact' }] }, 'profiles.review.guardrails', top.detectors);
    assert.equal(p.rules[0]!.id, 'profiles.review.guardrails.rules[0]');
    assert.deepEqual(p.rules[0]!.on, ['results']);
  });
});

describe('the engine', () => {
  test('no rules, or none for this place, server or tool: no plan', () => {
    assert.equal(new Screen([block({})]).plan(on), undefined);
    const s = new Screen([
      block({
        rules: [
          { detect: 'secrets', on: ['arguments'], action: 'block' },
          { detect: 'pii', server: 'crm', action: 'redact' },
          { detect: 'injection', tool: 'fetch_*', action: 'block' },
        ],
      }),
    ]);
    assert.equal(s.plan(on), undefined);
    assert.ok(s.plan({ ...on, on: 'arguments' }));
    assert.ok(s.plan({ ...on, server: 'crm' }));
    assert.ok(s.plan({ ...on, target: 'fetch_page' }));
  });

  test('redact: each secret replaced by a marker naming its detector, the message given left as it was', async () => {
    const s = new Screen([block({ rules: [{ detect: 'secrets', action: 'redact' }] })]);
    const given = result(SECRETS_TEXT);
    const out = await s.screen(given, s.plan(on)!, 'result');
    assert.equal(out.verdict, 'redact');
    assert.equal(given.content[0]!.text, SECRETS_TEXT);
    const text = out.value.content[0]!.text;
    for (const { secret } of Object.values(SECRETS)) assert.ok(!text.includes(secret.split('\n')[1] ?? secret), secret);
    assert.match(text, /\[redacted:secrets\/aws\]/);
    assert.match(text, /\[redacted:secrets\/privatekey\]/);
    assert.match(text, /The deploy user's key id is \[redacted:secrets\/aws\]\./);
    const json = JSON.stringify(out.findings);
    for (const { secret } of Object.values(SECRETS)) assert.ok(!json.includes(secret.split('\n')[1] ?? secret));
    assert.deepEqual(
      [...new Set(out.findings.map((f) => `${f.detector}/${f.kind} ${f.rule} ${f.action} ${f.where}`))].sort(),
      ['aws', 'database-connection-string', 'entropy', 'github', 'privatekey', 'slack'].map(
        (k) => `secrets/${k} guardrails.rules[0] redact result.content[0].text`,
      ),
    );
  });

  test('the first rule per finding decides; a profile and the top level: the stricter', async () => {
    const top = block({
      rules: [
        { detect: 'pii', server: 'crm', action: 'log' },
        { detect: 'pii', action: 'block' },
      ],
    });
    const s = new Screen([top]);
    assert.equal((await s.screen(result(PII_TEXT), s.plan({ ...on, server: 'crm' })!, 'result')).verdict, 'log');
    assert.equal((await s.screen(result(PII_TEXT), s.plan(on)!, 'result')).verdict, 'block');
    const profile = block({ rules: [{ detect: 'pii', action: 'redact' }] }, 'profiles.p.guardrails');
    const both = new Screen([profile, top]);
    const crm = await both.screen(result(PII_TEXT), both.plan({ ...on, server: 'crm' })!, 'result');
    assert.equal(crm.verdict, 'redact');
    assert.ok(crm.findings.every((f) => f.rule === 'profiles.p.guardrails.rules[0]'));
    assert.equal((await both.screen(result(PII_TEXT), both.plan(on)!, 'result')).verdict, 'block');
  });

  test('every string a model reads is screened, leaf by leaf; base64 data and _meta are not', async () => {
    const s = new Screen([block({ rules: [{ detect: 'pii', action: 'redact' }] })]);
    const message = {
      content: [
        { type: 'text', text: `mail ${PII.email}` },
        { type: 'image', data: 'amFuZS5kb2VAZXhhbXBsZS5jb20=', mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///c.txt', text: `card ${PII.card}` } },
      ],
      structuredContent: { customers: [{ email: PII.email, iban: PII.iban }] },
      _meta: { note: PII.email },
    };
    const out = await s.screen(message, s.plan(on)!, 'result');
    assert.deepEqual(out.value.content[0], { type: 'text', text: 'mail [redacted:pii/email]' });
    assert.deepEqual(out.value.content[1], message.content[1]);
    assert.equal((out.value.content[2] as { resource: { text: string } }).resource.text, 'card [redacted:pii/card]');
    assert.deepEqual(out.value.structuredContent, {
      customers: [{ email: '[redacted:pii/email]', iban: '[redacted:pii/iban]' }],
    });
    assert.equal(out.value._meta.note, PII.email);
    assert.deepEqual(
      out.findings.map((f) => f.where),
      [
        'result.content[0].text',
        'result.structuredContent.customers[0].email',
        'result.content[2].resource.text',
        'result.structuredContent.customers[0].iban',
      ],
    );
  });

  test('many of one kind in one place are one finding with its count', async () => {
    const s = new Screen([block({ rules: [{ detect: 'pii', action: 'log' }] })]);
    const many = Array.from({ length: 500 }, (_, i) => `user${i}@example.com`).join(', ');
    const out = await s.screen(result(many), s.plan(on)!, 'result');
    assert.deepEqual(out.findings, [
      {
        detector: 'pii',
        kind: 'email',
        rule: 'guardrails.rules[0]',
        action: 'log',
        where: 'result.content[0].text',
        count: 500,
      },
    ]);
    assert.equal(out.value.content[0]!.text, many);
  });

  test('a description (a string) and invisible characters: stripped to a marker', async () => {
    const s = new Screen([block({ rules: [{ detect: 'injection', on: ['descriptions'], action: 'redact' }] })]);
    const out = await s.screen(TAGGED_TEXT, s.plan({ ...on, on: 'descriptions' })!, 'description');
    assert.equal(out.value, 'Weather: sunny.[redacted:injection/unicode-tags]');
    assert.deepEqual(
      out.findings.map((f) => f.where),
      ['description'],
    );
  });
});

/** A local analyzer speaking Presidio's API: emails by code point offsets, or a failure on request. */
let mode: 'ok' | 'slow' | 'error' | 'garbage' | 'redirect' | 'outside' = 'ok';
const received: unknown[] = [];
let analyzer: Server;
let url = '';

function analyze(req: IncomingMessage, res: ServerResponse): void {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const q = JSON.parse(body) as { text: string };
    received.push(q);
    if (mode === 'slow') return void setTimeout(() => res.end('[]'), 2_000).unref();
    if (mode === 'error') return void res.writeHead(500).end('boom');
    if (mode === 'garbage') return void res.end('{"not":"a list"}');
    if (mode === 'redirect') return void res.writeHead(302, { location: 'http://127.0.0.1:1/' }).end();
    const cps = [...q.text];
    const findings: unknown[] = [];
    const joined = cps.join('');
    for (const m of joined.matchAll(/[a-z.]+@[a-z.]+\.[a-z]+/g)) {
      const start = [...joined.slice(0, m.index)].length;
      findings.push({ entity_type: 'EMAIL_ADDRESS', start, end: start + [...m[0]].length, score: 0.9 });
    }
    if (mode === 'outside') findings.push({ entity_type: 'X', start: 0, end: cps.length + 5, score: 1 });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(findings));
  });
}

describe('an external analyzer (Presidio API)', () => {
  before(async () => {
    analyzer = createServer(analyze);
    await new Promise<void>((r) => analyzer.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(analyzer.address() as AddressInfo).port}/analyze`;
  });
  after(() => analyzer.close());

  const screenWith = (failure: 'open' | 'closed', action = 'redact') =>
    new Screen([
      block({
        detectors: { presidio: { url, failure, timeout: 200, entities: ['EMAIL_ADDRESS'], threshold: 0.5 } },
        rules: [{ detect: 'presidio', action }],
      }),
    ]);

  test("its findings at the analyzer's code point offsets, redacted where they are in UTF-16", async () => {
    mode = 'ok';
    received.length = 0;
    const s = screenWith('closed');
    const text = `😀 write to ${PII.email} today`;
    const out = await s.screen(result(text), s.plan(on)!, 'result');
    assert.equal(out.value.content[0]!.text, '😀 write to [redacted:presidio/email_address] today');
    assert.deepEqual(received, [{ text, language: 'en', entities: ['EMAIL_ADDRESS'], score_threshold: 0.5 }]);
  });

  test('a timeout failing open: the text passes as it was, the finding logged, a note for the log', async () => {
    mode = 'slow';
    const s = screenWith('open', 'block');
    const out = await s.screen(result(PII_TEXT), s.plan(on)!, 'result');
    assert.equal(out.verdict, 'log');
    assert.equal(out.value.content[0]!.text, PII_TEXT);
    assert.deepEqual(out.findings, [
      {
        detector: 'presidio',
        kind: 'unavailable',
        rule: 'guardrails.rules[0]',
        action: 'log',
        where: 'result',
        count: 1,
      },
    ]);
    assert.deepEqual(out.notes, [
      'guardrails: detector presidio could not answer (it did not answer within 200 ms); failing open',
    ]);
  });

  test('a timeout failing closed: the whole text found — redacted, or blocked, as the rule says', async () => {
    mode = 'slow';
    const redacting = screenWith('closed');
    const out = await redacting.screen(result(PII_TEXT), redacting.plan(on)!, 'result');
    assert.equal(out.verdict, 'redact');
    assert.deepEqual(out.value, result('[redacted:presidio/unavailable]'));
    const blocking = screenWith('closed', 'block');
    assert.equal((await blocking.screen(result(PII_TEXT), blocking.plan(on)!, 'result')).verdict, 'block');
  });

  test('an error status, a reply of another shape, a range outside the text, a redirect: each unavailable', async () => {
    for (const m of ['error', 'garbage', 'outside', 'redirect'] as const) {
      mode = m;
      const s = screenWith('open');
      const out = await s.screen(result(PII_TEXT), s.plan(on)!, 'result');
      assert.equal(out.findings[0]?.kind, 'unavailable', m);
      assert.match(
        out.notes[0]!,
        /could not answer \((it answered HTTP 500|its reply was not a list|its reply named a range outside|it could not be reached)/,
        m,
      );
    }
  });
});
