// What the local skills tests share (test/gateway/skills-local*.test.ts): a folder of skills in the Agent
// Skills layout, a gateway serving it beside a fixture upstream that serves skills too, and clients of both
// eras that declare the extension.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Revision } from '../harness/schema';
import { fixtureCommand, type gatewayFor } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';

export const MODERN: Revision = '2026-07-28';
export const LEGACY: Revision = '2025-11-25';
export const ERAS: Revision[] = [LEGACY, MODERN];
const HOST = { extensions: { 'io.modelcontextprotocol/skills': {} } };

export const skillMd = (name: string, description: string, body = `about ${name}`) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\n${body}\n`;

/** `dir/<name>/SKILL.md` and each of `files` (path under the folder -> content). */
export function writeSkill(
  dir: string,
  name: string,
  description: string,
  files: Record<string, string | Buffer> = {},
) {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(join(dir, name, 'SKILL.md'), skillMd(name, description));
  for (const [rel, body] of Object.entries(files)) {
    mkdirSync(join(dir, name, rel, '..'), { recursive: true });
    writeFileSync(join(dir, name, rel), body);
  }
}

/** The local folder: `notes` (a reference and a binary file), `pdf-processing` (also the upstream's URI),
 *  and two malformed folders; the upstream's: `pdf-processing` and `tasks`. */
export function folders(root: string): { own: string; up: string; outside: string } {
  const own = mkdtempSync(join(root, 'own-'));
  writeSkill(own, 'notes', 'Taking notes, locally', {
    'references/guide.md': 'the local guide\n',
    'assets/logo.bin': Buffer.from([0, 255, 1, 254, 0x80]),
  });
  writeSkill(own, 'pdf-processing', 'PDFs, the local way');
  mkdirSync(join(own, 'broken'));
  writeFileSync(join(own, 'broken', 'SKILL.md'), '---\nname: [broken\n---\nno\n');
  writeSkill(own, 'misnamed', 'x');
  writeFileSync(join(own, 'misnamed', 'SKILL.md'), skillMd('other-name', 'misplaced'));
  const up = mkdtempSync(join(root, 'up-'));
  writeSkill(up, 'pdf-processing', 'PDFs, the upstream way');
  writeSkill(up, 'tasks', 'Tasks, upstream');
  const outside = mkdtempSync(join(root, 'outside-'));
  writeFileSync(join(outside, 'secret.txt'), 'TOP-SECRET-CONTENT\n');
  return { own, up, outside };
}

/** A gateway with the upstream `a` (pass-through) and the local folders `dirs`. */
export async function gatewayWith(
  open: typeof gatewayFor,
  up: string,
  skills: unknown,
  o: { extra?: Record<string, unknown>; settings?: Record<string, unknown>; lines?: string[] } = {},
) {
  return open(
    { a: fixtureCommand(['--rev', MODERN, '--name', 'a', '--skills-dir', up]) },
    { 'mcp.passthrough': ['a'], ...o.settings },
    { skills, ...o.extra },
    { log: (l: string) => o.lines?.push(l) },
  );
}

export async function client(url: string, rev: Revision): Promise<HttpClient> {
  const c = new HttpClient(url, rev, { capabilities: HOST });
  if (rev !== MODERN) assert.ok((await c.initialize()).result, 'initialized');
  return c;
}

export const uris = (r: Json | undefined) => ((r?.skills ?? []) as Json[]).map((s) => String(s.uri)).sort();
export const entryOf = (r: Json | undefined, uri: string) => ((r?.skills ?? []) as Json[]).find((s) => s.uri === uri);
export const contentOf = (r: Json | undefined) => ((r?.contents ?? []) as Json[])[0] ?? {};
export const sha256 = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;
