// The extension in a real VS Code extension host (code-server + headless Chromium, set up by
// scripts/vscode-host/setup.sh): build/vscode/suite.js runs inside the host; this side answers the
// widgets it asks for (`mcpx-drive:` lines) through the page, as a person would, and takes the
// screenshots the suite names. The workspace has one legacy fixture upstream in .vscode/mcp.json.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { SERVER_JS } from './fixtures/upstream/client';
import { repoRoot } from './harness/gateway';

import { type Page, driver } from './harness/vscodeDriver';
const HOST = process.env.MCPX_VSCODE_HOST || join(process.env.HOME ?? '', '.cache', 'mcpx-vscode-host');
const VSIX = join(repoRoot(), 'build', 'mcpx.vsix');

/** The test language model (test/vscode/lm-provider) packaged with vsce, once per run of this file. */
let lmPackaged: string | undefined;
function lmVsix(): string {
  if (lmPackaged) return lmPackaged;
  const out = join(repoRoot(), 'build', 'mcpx-test-lm.vsix');
  const r = spawnSync(
    join(HOST, 'node', 'bin', 'node'),
    [
      join(HOST, 'node_modules', '@vscode', 'vsce', 'vsce'),
      'package',
      '--no-dependencies',
      '--allow-missing-repository',
      '--skip-license',
      '-o',
      out,
    ],
    { cwd: join(repoRoot(), 'test', 'vscode', 'lm-provider'), encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr + r.stdout);
  return (lmPackaged = out);
}

/** One run of build/vscode/suite.js in code-server, the widgets answered by the driver. Returns the
 *  suite's result lines. */
async function runSuite(name: string, o: { installVsix?: string; suite?: 'smoke' }): Promise<string[]> {
  assert.ok(
    existsSync(join(HOST, 'node_modules', 'code-server')),
    `the VS Code host is not set up in ${HOST}: run scripts/vscode-host/setup.sh (npm test does)`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-vsc-'));
  const ws = join(dir, 'ws');
  mkdirSync(join(ws, '.vscode'), { recursive: true });
  // The skills `up` serves (SEP-2640; the Upstreams view lists them: test/vscode/upstreams.ts).
  const skills = join(dir, 'skills', 'release-notes');
  mkdirSync(skills, { recursive: true });
  writeFileSync(
    join(skills, 'SKILL.md'),
    '---\nname: release-notes\ndescription: Write release notes from the changelog\n---\n\nRead CHANGELOG.md.\n',
  );
  writeFileSync(
    join(ws, '.vscode', 'mcp.json'),
    JSON.stringify({
      servers: {
        up: {
          type: 'stdio',
          command: process.execPath,
          args: [
            SERVER_JS(),
            '--rev',
            '2025-11-25',
            '--name',
            'up',
            '--record',
            join(ws, 'up.jsonl'),
            '--skills-dir',
            join(dir, 'skills'),
          ],
        },
      },
    }),
  );
  // A workspace file: adding a folder then does not restart the extension host.
  const workspace = join(dir, 'mcpx.code-workspace');
  writeFileSync(workspace, JSON.stringify({ folders: [{ path: ws }] }));
  const { runHost } = (await import(pathToFileURL(join(repoRoot(), 'scripts', 'vscode-host', 'run.mjs')).href)) as {
    runHost(o: Record<string, unknown>): Promise<number>;
  };
  const acks = join(dir, 'acks');
  const d = driver(acks);
  const lines: string[] = [];
  try {
    const code = await runHost({
      ...(o.installVsix ? { installVsix: o.installVsix } : { extensionPath: repoRoot() }),
      // A language model for the sampling test, installed beside mcpx (never part of its package).
      alsoInstall: [lmVsix()],
      settings: { 'chat.disableAIFeatures': false },
      testsPath: join(repoRoot(), 'build', 'vscode', 'suite.js'),
      workspace,
      // The whole suite in one host: room for a machine busy with other test files (it runs beside them).
      timeoutMs: 600_000,
      echo: false,
      env: {
        MCPX_DRIVE_ACKS: acks,
        ...(o.suite ? { MCPX_SUITE: o.suite } : {}),
        ...(process.env.MCPX_SUITE_GREP ? { MCPX_SUITE_GREP: process.env.MCPX_SUITE_GREP } : {}),
      },
      logFile: join(repoRoot(), 'build', `vscode-host-${name}.log`),
      // VS Code's own logs (the extension's output channels among them), for a failure's reader.
      logsDir: join(repoRoot(), 'build', `vscode-logs-${name}`),
      onLog: (t: string) => {
        lines.push(t);
        d.onLog(t);
      },
      onPage: (page: Page) => d.onPage(page),
    }).catch((e: Error) => {
      throw new Error(
        `${e.message}\n${lines.filter((l) => l.startsWith('mcpx-test:')).join('\n')}\n${d.errors.join('\n')}`,
      );
    });
    d.stop();
    const results = lines.filter((l) => l.startsWith('mcpx-test:'));
    assert.equal(
      code,
      0,
      `editor tests failed (log: build/vscode-host-${name}.log):\n${results.join('\n')}\n${d.errors.join('\n')}`,
    );
    assert.ok(results.length > 0 && results.every((l) => l.startsWith('mcpx-test: ok')), results.join('\n'));
    assert.deepEqual(d.errors, []);
    return results;
  } finally {
    d.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The names of a zip's entries, from its central directory (APPNOTE.TXT 4.3.12 and 4.3.16): the .vsix
 *  is a zip, and what it holds is what a user installs. */
function zipEntries(file: string): string[] {
  const buf = readFileSync(file);
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(eocd >= 0, 'no end of central directory record');
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    assert.equal(buf.readUInt32LE(at), 0x02014b50, 'a central directory header');
    const nameLen = buf.readUInt16LE(at + 28);
    const extraLen = buf.readUInt16LE(at + 30);
    const commentLen = buf.readUInt16LE(at + 32);
    names.push(buf.toString('utf8', at + 46, at + 46 + nameLen));
    at += 46 + nameLen + extraLen + commentLen;
  }
  return names.sort();
}

test('the extension in a real VS Code extension host (code-server), from the dev folder', {
  timeout: 700_000,
}, async () => {
  const results = await runSuite('dev', {});
  assert.equal(results.length, 44, results.join('\n'));
});

test("the packaged .vsix: under 2 MB, exactly the files a user needs, installed offline, the smoke test passes against the installed package (its 'mcpx' launcher runs the packaged CLI)", {
  timeout: 300_000,
}, async () => {
  const r = spawnSync(
    join(HOST, 'node', 'bin', 'node'),
    [
      join(HOST, 'node_modules', '@vscode', 'vsce', 'vsce'),
      'package',
      '--no-dependencies',
      '--allow-missing-repository',
      '--no-rewrite-relative-links',
      '-o',
      VSIX,
    ],
    { cwd: repoRoot(), encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr + r.stdout);
  const size = statSync(VSIX).size;
  assert.ok(size < 2 * 1024 * 1024, `${size} bytes`);
  // Exactly what the extension runs and a user reads (.vscodeignore decides): no sources, maps or tests.
  assert.deepEqual(zipEntries(VSIX), [
    '[Content_Types].xml',
    'extension.vsixmanifest',
    'extension/LICENSE.txt',
    'extension/changelog.md',
    'extension/dist/cli.js',
    'extension/dist/exec-child.js',
    'extension/dist/extension.js',
    'extension/dist/mcpx.js',
    'extension/dist/otel.js',
    'extension/dist/sandbox-relay.js',
    'extension/dist/shim.js',
    'extension/dist/watchdog.js',
    'extension/dist/webview/app.js',
    'extension/dist/webview/form.css',
    'extension/dist/webview/form.js',
    'extension/media/icon.png',
    'extension/package.json',
    'extension/readme.md',
  ]);
  const results = await runSuite('vsix', { installVsix: VSIX, suite: 'smoke' });
  assert.equal(results.length, 4, results.join('\n'));
});
