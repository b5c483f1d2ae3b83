// The declarations mcpx_describe gives an mcpx_exec script (src/gateway/exec/declarations.ts; docs/exec.md
// "Typed functions") are real TypeScript: compiled with the project's own tsc, strict, together with a
// script — a right one compiles, and one that passes a wrong argument or misreads the output does not.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { HttpPeer } from '../fixtures/upstream/client';
import { repoRoot } from '../harness/gateway';
import { fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import type { Json } from '../harness/wire';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-exec-types-'));
after(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

/** tsc's diagnostics for `declarations` and `script` as the body of an async function ('' when clean). */
function compile(declarations: string, script: string): string {
  writeFileSync(join(dir, 'script.ts'), `${declarations}\nexport async function script() {\n${script}\n}\n`);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'es2022', lib: ['es2022'], types: [] },
      files: ['script.ts'],
    }),
  );
  const r = spawnSync(join(repoRoot(), 'node_modules', '.bin', 'tsc'), ['-p', dir], { encoding: 'utf8' });
  return `${r.stdout}${r.stderr}`.trim();
}

test("a server's declarations compile with a right script and refuse a wrong one", async () => {
  const gw = await gatewayFor({ 'b-2': fixtureCommand(['--rev', '2026-07-28', '--name', 'b']) });
  try {
    const peer = new HttpPeer('2025-11-25', gw.url);
    await peer.initialize();
    const r = await peer.request('tools/call', { name: 'mcpx_describe', arguments: { server: 'b-2' } });
    const s = (r.result as Json).structuredContent as Json;
    assert.ok((s.tools as string[]).includes('add'));
    const ts = String(s.typescript);
    assert.equal(
      compile(
        ts,
        `const sum = await mcpx.servers.b_2.add({ a: 1, b: 2 });
         const n: number | undefined = sum.structuredContent?.sum;
         const e = await mcpx.servers.b_2.echo({ text: 'x' });
         const doc = await mcpx.read('mcpx://b-2/fixture://doc');
         console.log(n, e.content[0]?.text, doc.contents.length);
         return mcpx.call('b-2', 'echo', { text: 'y' });`,
      ),
      '',
    );
    const wrong = compile(
      ts,
      `const sum = await mcpx.servers.b_2.add({ a: 'one', b: 2 });
       const t: string | undefined = sum.structuredContent?.sum;
       return t;`,
    );
    assert.match(wrong, /script\.ts\(\d+,\d+\): error TS2322/, wrong);
    assert.match(wrong, /'string' is not assignable to type 'number'/);
    assert.match(wrong, /'number' is not assignable to type 'string'/);
    assert.deepEqual(peer.problems, [], 'the described result is valid for the client');
  } finally {
    await gw.close();
  }
});
