// One spelling of a resource URI (docs/gateway.md "Resource URIs"): the permission rules are matched
// against the normalised URI and the upstream is sent that same URI, so the documented rule denying
// `file:///home/*/.ssh/*` refuses every other spelling of the same file — a scheme or host in capitals,
// `file://localhost/`, `file:/`, dot segments, percent-escapes of unreserved characters — through a
// gateway-mode mcpx:// URI, a pass-through server's bare URI and an mcpx_exec script's mcpx.read; and the
// upstream's record shows it was never asked for any of them.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { normaliseUri, toGatewayUri } from '../../src/gateway/catalogue/uris';
import { type TestGateway, fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';

const KEY = 'file:///home/u/.ssh/id_rsa';
/** Twelve other spellings of KEY. */
const SPELLINGS = [
  'FILE:///home/u/.ssh/id_rsa',
  'file://localhost/home/u/.ssh/id_rsa',
  'file://LOCALHOST/home/u/.ssh/id_rsa',
  'file:/home/u/.ssh/id_rsa',
  'file:///./home/u/.ssh/id_rsa',
  'file:///home/u/../u/.ssh/id_rsa',
  'file:///home/u/%2Essh/id_rsa',
  'file:///home/%75/.ssh/id_rsa',
  'file:///home/u/.ssh/./id_rsa',
  'File://Localhost/home/x/../u/./%2essh/id%5Frsa',
  'file:///home/u/.ssh/sub/../id_rsa',
  'file:///../../home/u/.ssh/id_rsa',
];

describe('normaliseUri', () => {
  test('every spelling of the key is the key', () => {
    for (const s of SPELLINGS) assert.equal(normaliseUri(s), KEY, s);
    assert.equal(normaliseUri(KEY), KEY);
  });

  test('what it keeps: path case, other escapes (hex upper-cased), queries, relative text, other schemes', () => {
    assert.equal(normaliseUri('file:///Home/U/%2fx%7e'), 'file:///Home/U/%2Fx~');
    assert.equal(
      normaliseUri('HTTPS://User@Example.COM:8443/a/./b/../c?q=%41#F'),
      'https://User@example.com:8443/a/c?q=A#F',
    );
    assert.equal(normaliseUri('fixture://items/../doc'), 'fixture://items/doc');
    assert.equal(normaliseUri('urn:ISBN:./x'), 'urn:ISBN:./x');
    assert.equal(normaliseUri('abs/../doc'), 'abs/../doc');
    assert.equal(normaliseUri('file:///a/b/..'), 'file:///a/');
    assert.equal(normaliseUri('file://server/share/x'), 'file://server/share/x', 'a remote host is kept');
  });
});

const dir = mkdtempSync(join(tmpdir(), 'mcpx-uris-'));
const records = { fs: join(dir, 'fs.jsonl'), pt: join(dir, 'pt.jsonl') };
let gw: TestGateway;
let c: HttpClient;

before(async () => {
  const fixture = (name: 'fs' | 'pt') =>
    fixtureCommand(['--rev', '2025-11-25', '--name', name, '--record', records[name]]);
  gw = await gatewayFor(
    { fs: fixture('fs'), pt: fixture('pt') },
    { 'mcp.passthrough': ['pt'] },
    { permissions: { rules: [{ kind: 'resource', tool: 'file:///home/*/.ssh/*', action: 'deny' }] } },
  );
  c = new HttpClient(gw.url, '2025-11-25');
  await c.initialize();
});
after(async () => {
  await gw?.close();
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

/** The URIs `server`'s upstream was asked to read. */
const read = (server: 'fs' | 'pt'): string[] =>
  readFileSync(records[server], 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { dir: string; frame: Json })
    .filter((l) => l.dir === 'in' && l.frame.method === 'resources/read')
    .map((l) => String((l.frame.params as Json).uri));

describe('the rule on file:///home/*/.ssh/* holds for every spelling', { timeout: 60_000 }, () => {
  test('gateway mode (mcpx://fs/…) and pass-through (bare): refused by the rule', async () => {
    for (const s of [KEY, ...SPELLINGS]) {
      for (const uri of [toGatewayUri('fs', s), s]) {
        const r = await c.request('resources/read', { uri });
        assert.equal(r.error?.code, -32602, `${uri}: ${JSON.stringify(r.response)}`);
        assert.match(String(r.error?.message), /mcpx refused reading (fs|pt)\/file:\/\/\/home\/u\/\.ssh\/id_rsa/);
      }
    }
  });

  test('an mcpx_exec script: each mcpx.read refused', async () => {
    const script = `const out = [];
for (const uri of ${JSON.stringify(SPELLINGS.map((s) => toGatewayUri('fs', s)))}) {
  try { await mcpx.read(uri); out.push('read ' + uri); }
  catch (e) { out.push(e.message.includes('mcpx refused reading fs/file:///home/u/.ssh/id_rsa') ? 'refused' : e.message); }
}
return out;`;
    const r = await c.request('tools/call', { name: 'mcpx_exec', arguments: { script } });
    const result = (r.result?.structuredContent as Json | undefined)?.result;
    assert.deepEqual(
      result,
      SPELLINGS.map(() => 'refused'),
      JSON.stringify(r.response),
    );
  });

  test('an allowed read is sent upstream in its one spelling', async () => {
    const r = await c.request('resources/read', { uri: toGatewayUri('fs', 'FILE://LOCALHOST/abs/./x/../path.txt') });
    assert.equal(
      ((r.result?.contents as Json[] | undefined)?.[0] as Json | undefined)?.text,
      'abs',
      JSON.stringify(r.response),
    );
    const bare = await c.request('resources/read', { uri: 'Fixture://DOC' });
    assert.equal(
      ((bare.result?.contents as Json[] | undefined)?.[0] as Json | undefined)?.text,
      'doc body',
      JSON.stringify(bare.response),
    );
    assert.deepEqual(read('fs'), ['file:///abs/path.txt']);
    assert.deepEqual(read('pt'), ['fixture://doc']);
  });
});
