// mcpx's own skills and the disk (docs/gateway.md "Skills"): what is read stays inside the configured
// directory (no `..`, no link out, no FIFO waited on), within skills.maxFileBytes, and is what the listing
// promised — a file changed after the listing is refused as unverified and the folders read again; a reload
// reads them again too. The config block's errors name their paths. Real gateways, real fixture upstreams,
// clients of both eras (every frame validated).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parseConfig } from '../../src/config/file';
import { Settings } from '../../src/config/settings';
import { fixtureCommand, gatewayPool, killAll } from '../harness/upstreams';
import type { Json } from '../harness/wire';
import { ERAS, MODERN, client, contentOf, entryOf, folders, gatewayWith, uris, writeSkill } from './localSkillsKit';

const root = mkdtempSync(join(tmpdir(), 'mcpx-local-skills-disk-'));
const gatewayOf = gatewayPool();
after(async () => {
  killAll();
  rmSync(root, { recursive: true, force: true });
});

/** The whole response as text, to look for what must not be in it. */
const said = (r: unknown) => JSON.stringify(r);

describe('what is read stays in the directory', { timeout: 90_000 }, () => {
  test('`..` in a URI, a link out of the folder (listed or swapped in later) and a FIFO are never read', async () => {
    const { own, up, outside } = folders(root);
    symlinkSync(join(outside, 'secret.txt'), join(own, 'notes', 'leak.txt'));
    symlinkSync(outside, join(own, 'notes', 'elsewhere'));
    execFileSync('mkfifo', [join(own, 'notes', 'pipe')]);
    // A whole skill folder that is a link out of the directory.
    writeSkill(outside, 'away', 'A skill outside the directory');
    symlinkSync(join(outside, 'away'), join(own, 'away'));
    const lines: string[] = [];
    // pins off: the skill listed again after the swap below is not held.
    const gw = await gatewayWith(gatewayOf, up, { dirs: [own], pins: 'off' }, { lines });
    for (const rev of ERAS) {
      const c = await client(gw.url, rev);
      const listed = (await c.request('skills/list')).result;
      assert.ok(!uris(listed).includes('skill://away/SKILL.md'), 'the folder linked out is not listed');
      const notes = entryOf(listed, 'skill://notes/SKILL.md')!;
      assert.deepEqual(
        (notes.resources as Json[]).map((f) => f.uri),
        ['skill://notes/SKILL.md', 'skill://notes/assets/logo.bin', 'skill://notes/references/guide.md'],
        'the links out and the FIFO are left out of the listing',
      );
      for (const uri of [
        'skill://notes/leak.txt',
        'skill://notes/elsewhere/secret.txt',
        'skill://notes/pipe',
        'skill://notes/../../outside/secret.txt',
        'skill://notes/references/../../../secret.txt',
        'skill://mcpx/mcpx/notes/../../secret.txt',
        'skill://mcpx/mcpx/notes/leak.txt',
        'skill://away/SKILL.md',
      ]) {
        const r = await c.request('resources/read', { uri });
        assert.ok(r.error, `${uri} is refused: ${said(r.result)}`);
        assert.ok(!said(r).includes('TOP-SECRET'), uri);
      }
    }
    assert.ok(lines.some((l) => /notes: leak\.txt leads out of the skills directory; left out/.test(l)));
    assert.ok(lines.some((l) => /notes: pipe is not a regular file; left out/.test(l)));
    assert.ok(lines.some((l) => /away: left out: it leads out of the skills directory/.test(l)));
    // A listed file replaced by a link out after the listing: refused at the read.
    const c = await client(gw.url, MODERN);
    await c.request('skills/list');
    rmSync(join(own, 'notes', 'references', 'guide.md'));
    symlinkSync(join(outside, 'secret.txt'), join(own, 'notes', 'references', 'guide.md'));
    const swapped = await c.request('resources/read', { uri: 'skill://notes/references/guide.md' });
    assert.equal(swapped.error?.code, -32603);
    assert.match(String(swapped.error?.message), /leads out of its skills directory; it is not read/);
    assert.ok(!said(swapped).includes('TOP-SECRET'));
    // The same with a FIFO swapped in (after the listing the failed read made mcpx read again): refused at
    // once, not waited on.
    await c.request('skills/list');
    rmSync(join(own, 'notes', 'assets', 'logo.bin'));
    execFileSync('mkfifo', [join(own, 'notes', 'assets', 'logo.bin')]);
    const fifo = await c.request('resources/read', { uri: 'skill://notes/assets/logo.bin' });
    assert.match(String(fifo.error?.message), /is a named pipe \(FIFO\), not a regular file: it is not read/);
    assert.ok(!String(fifo.error?.message).includes(own), 'the folder path is not told to the client');
  });

  test('skills.maxFileBytes: a skill with a larger file is left out, logged; a file grown past it is not read', async () => {
    const { own, up } = folders(root);
    writeSkill(own, 'big', 'A big skill', { 'data.txt': 'x'.repeat(3000) });
    const lines: string[] = [];
    const gw = await gatewayWith(gatewayOf, up, [own], { lines, settings: { 'skills.maxFileBytes': 2048 } });
    const c = await client(gw.url, MODERN);
    const listed = uris((await c.request('skills/list')).result);
    assert.ok(!listed.includes('skill://big/SKILL.md') && listed.includes('skill://notes/SKILL.md'), listed.join());
    assert.ok(
      lines.some((l) => /big: left out: data\.txt is 3000 bytes, more than skills\.maxFileBytes \(2048\)/.test(l)),
    );
    writeFileSync(join(own, 'notes', 'references', 'guide.md'), 'y'.repeat(4000));
    const r = await c.request('resources/read', { uri: 'skill://notes/references/guide.md' });
    assert.equal(r.error?.code, -32603);
    assert.match(String(r.error?.message), /it is 4000 bytes, more than skills\.maxFileBytes \(2048\)/);
  });
});

describe('what is read is what the listing promised', { timeout: 90_000 }, () => {
  test('a file changed after the listing is refused as unverified; the next listing reads the folders again', async () => {
    const { own, up } = folders(root);
    // pins off for mcpx's own skills: the changed skill is listed anew rather than held.
    const gw = await gatewayWith(gatewayOf, up, { dirs: [own], pins: 'off' });
    for (const rev of ERAS) {
      const c = await client(gw.url, rev);
      const before = entryOf((await c.request('skills/list')).result, 'skill://notes/SKILL.md')!;
      const body = `changed for ${rev}\n`;
      writeFileSync(join(own, 'notes', 'references', 'guide.md'), body);
      const r = await c.request('resources/read', { uri: 'skill://notes/references/guide.md' });
      assert.equal(r.error?.code, -32603);
      assert.match(
        String(r.error?.message),
        /skill "notes" of mcpx: skill:\/\/notes\/references\/guide\.md is not what its listing promised/,
      );
      const after = entryOf((await c.request('skills/list')).result, 'skill://notes/SKILL.md')!;
      assert.notDeepEqual(after.resources, before.resources, 'listed anew');
      const again = await c.request('resources/read', { uri: 'skill://notes/references/guide.md' });
      assert.equal(contentOf(again.result).text, body);
    }
  });

  test('a file removed after the listing is not found, and the next listing no longer lists it', async () => {
    const { own, up } = folders(root);
    const gw = await gatewayWith(gatewayOf, up, { dirs: [own], pins: 'off' });
    const c = await client(gw.url, MODERN);
    await c.request('skills/list');
    rmSync(join(own, 'notes', 'assets'), { recursive: true });
    const r = await c.request('resources/read', { uri: 'skill://notes/assets/logo.bin' });
    assert.ok(r.error, 'not read');
    const notes = entryOf((await c.request('skills/list')).result, 'skill://notes/SKILL.md')!;
    assert.deepEqual(
      (notes.resources as Json[]).map((f) => f.uri),
      ['skill://notes/SKILL.md', 'skill://notes/references/guide.md'],
    );
  });

  test('under pins.mode hold a changed local skill is held: withheld, and skills/get refused naming the review', async () => {
    const { own, up } = folders(root);
    const gw = await gatewayWith(gatewayOf, up, [own]);
    const c = await client(gw.url, MODERN);
    assert.ok(uris((await c.request('skills/list')).result).includes('skill://notes/SKILL.md'));
    writeFileSync(join(own, 'notes', 'references', 'guide.md'), 'rewritten by someone\n');
    const got = await c.request('skills/get', { uri: 'skill://notes/SKILL.md' });
    assert.equal(got.error?.code, -32602);
    assert.match(String(got.error?.message), /mcpx pins/);
    assert.ok(!uris((await c.request('skills/list')).result).includes('skill://notes/SKILL.md'));
    // Accepted (`mcpx pins accept mcpx`): listed again as it is now, and its file reads.
    assert.deepEqual(gw.g.acceptPins('mcpx'), ['skill://notes/SKILL.md']);
    assert.ok(uris((await c.request('skills/list')).result).includes('skill://notes/SKILL.md'));
    const r = await c.request('resources/read', { uri: 'skill://notes/references/guide.md' });
    assert.equal(contentOf(r.result).text, 'rewritten by someone\n');
  });

  test('a reload reads the folders again: a new directory and a new skill folder are listed', async () => {
    const { own, up } = folders(root);
    const gw = await gatewayWith(gatewayOf, up, [own]);
    const c = await client(gw.url, MODERN);
    assert.ok(!uris((await c.request('skills/list')).result).includes('skill://fresh/SKILL.md'));
    writeSkill(own, 'fresh', 'Added after the first listing');
    const more = mkdtempSync(join(root, 'more-'));
    writeSkill(more, 'extra', 'From a second directory');
    const config = parseConfig(
      {
        servers: { a: fixtureCommand(['--rev', MODERN, '--name', 'a', '--skills-dir', up]) },
        skills: [own, more],
      },
      'test',
      { env: process.env },
    );
    assert.deepEqual(config.issues, []);
    await gw.g.reload(config, new Settings([{ source: 'flag', values: { 'mcp.passthrough': ['a'] } }]));
    const listed = uris((await c.request('skills/list')).result);
    assert.ok(listed.includes('skill://fresh/SKILL.md') && listed.includes('skill://extra/SKILL.md'), listed.join());
  });
});

describe('the skills block of the config', () => {
  const issues = (file: Record<string, unknown>) =>
    parseConfig({ servers: {}, ...file }, 'test', { env: process.env }).issues.map((i) => `${i.path}: ${i.message}`);

  test('each problem is named by its path; a missing directory is none (it is logged when listed)', () => {
    assert.deepEqual(issues({ skills: 'skills' }), [
      'skills: expected {"dirs": [directories], "pins"?} or a list of directories',
    ]);
    assert.deepEqual(issues({ skills: { dirs: ['ok', 7] } }), ['skills.dirs.1: expected string, received number']);
    assert.deepEqual(issues({ skills: { dirs: [] } }), ['skills.dirs: expected at least one directory']);
    assert.deepEqual(issues({ skills: { dirs: ['a'], pins: 'maybe' } }).length, 1);
    assert.deepEqual(issues({ skills: { dirs: ['a'], extra: 1 } }), ["skills: unrecognized key(s) in object: 'extra'"]);
    assert.deepEqual(issues({ skills: [join(root, 'nowhere')] }), []);
    assert.deepEqual(issues({ servers: { mcpx: { command: 'x' } }, skills: ['a'] }), [
      `servers.mcpx: "mcpx" names mcpx's own skills (the skills block); choose another name for this server`,
    ]);
    const profile = { p: { servers: { mcpx: { skills: ['x'] } }, mode: 'passthrough' } };
    assert.deepEqual(issues({ profiles: profile }), ['profiles.p.servers.mcpx: no server named "mcpx" is configured']);
    assert.deepEqual(issues({ profiles: profile, skills: ['a'] }), []);
  });
});
