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
import type { Action } from './vscode/actions';

interface Loc {
  first(): Loc;
  waitFor(o: { state: string; timeout: number }): Promise<void>;
  fill(t: string): Promise<void>;
  click(): Promise<void>;
  hover(): Promise<void>;
  filter(o: { hasText: string }): Loc;
  locator(sel: string): Loc;
}
interface Frame {
  frameLocator(sel: string): Frame;
  locator(sel: string): Loc;
}
interface Page {
  context(): {
    pages(): Page[];
    waitForEvent(e: 'page', o: { timeout: number }): Promise<Page>;
    route(
      url: RegExp,
      handler: (route: {
        request(): { url(): string };
        continue(): Promise<void>;
        fulfill(o: { status: number; headers: Record<string, string> }): Promise<void>;
      }) => Promise<void>,
    ): Promise<void>;
  };
  url(): string;
  waitForTimeout(ms: number): Promise<void>;
  close(): Promise<void>;
  waitForLoadState(s: string): Promise<void>;
  frameLocator(sel: string): Frame;
  locator(sel: string): Loc;
  keyboard: { press(k: string): Promise<void>; type(t: string): Promise<void> };
  screenshot(o: { path: string }): Promise<unknown>;
  waitForTimeout(ms: number): Promise<void>;
}

export const SHOTS = join(repoRoot(), 'build', 'screenshots');

/** Performs the actions the suite asks for, in order, each once its widget is there. */
function driver(): { onLog(text: string): void; onPage(page: Page): Promise<void>; stop(): void; errors: string[] } {
  const queue: Action[] = [];
  const errors: string[] = [];
  let stopped = false;
  return {
    errors,
    onLog(text) {
      const m = /^mcpx-drive: (.*)$/.exec(text);
      if (m) queue.push(...(JSON.parse(m[1]!) as Action[]));
    },
    stop: () => void (stopped = true),
    async onPage(page) {
      mkdirSync(SHOTS, { recursive: true });
      // code-server sends a loopback URL opened with openExternal through its port proxy (/proxy/PORT/…),
      // which folds the "//" of URL-valued query parameters (redirect_uri, resource) on the way; a desktop
      // VS Code opens the URL as it is. The browser is sent straight to the address the extension asked for.
      await page.context().route(/\/proxy\/\d+\//, async (route) => {
        const m = /^https?:\/\/[^/]+\/proxy\/(\d+)(\/.*)$/.exec(route.request().url());
        if (!m) return route.continue();
        await route.fulfill({ status: 302, headers: { location: `http://127.0.0.1:${m[1]}${m[2]}` } });
      });
      while (!stopped) {
        const a = queue.shift();
        if (!a) {
          await new Promise((r) => setTimeout(r, 50));
          continue;
        }
        try {
          if ('fill' in a) {
            const input = page.locator('.quick-input-widget input').first();
            await input.waitFor({ state: 'visible', timeout: 20_000 });
            await input.fill(a.fill);
            await page.waitForTimeout(150);
            await page.keyboard.press('Enter');
          } else if ('search' in a) {
            const input = page.locator('.quick-input-widget input').first();
            await input.waitFor({ state: 'visible', timeout: 20_000 });
            await input.fill(a.search);
          } else if ('pick' in a) {
            const row = page.locator('.quick-input-widget .monaco-list-row').filter({ hasText: a.pick }).first();
            await row.waitFor({ state: 'visible', timeout: 20_000 });
            await row.click();
          } else if ('key' in a) {
            await page.locator('.quick-input-widget input').first().waitFor({ state: 'visible', timeout: 20_000 });
            await page.keyboard.press(a.key);
          } else if ('back' in a) {
            const back = page
              .locator('.quick-input-widget .codicon-quick-input-back, .quick-input-widget [aria-label="Back"]')
              .first();
            await back.waitFor({ state: 'visible', timeout: 20_000 });
            await back.click();
          } else if ('title' in a) {
            // Who asks, and for which client, in the widget's title.
            await page
              .locator('.quick-input-widget .quick-input-title')
              .filter({ hasText: a.title })
              .first()
              .waitFor({ state: 'visible', timeout: 20_000 });
          } else if ('toast' in a) {
            // A notification's button (a toast): screenshot it first when asked.
            // The notification whose message has `has` (a toast, or in the notifications center).
            const item = page.locator('.notification-list-item').filter({ hasText: a.has ?? a.toast });
            const button = item.locator('.monaco-button').filter({ hasText: a.toast }).first();
            await button.waitFor({ state: 'visible', timeout: 30_000 });
            if (a.shot) {
              await page.waitForTimeout(300);
              await page.screenshot({ path: join(SHOTS, `${a.shot}.png`) });
            }
            await button.click();
          } else if ('browser' in a) {
            // A page the editor opened in the browser (vscode.env.openExternal): its button clicked, as the
            // person would; it ends on whatever page the button leads to.
            const ctx = page.context();
            const newPage = ctx.waitForEvent('page', { timeout: 30_000 });
            newPage.catch(() => undefined);
            // The workbench may first ask whether to open an external site: Open.
            const ask = page.locator('.monaco-dialog-box .monaco-button').filter({ hasText: 'Open' }).first();
            await ask
              .waitFor({ state: 'visible', timeout: 3_000 })
              .then(() => ask.click())
              .catch(() => undefined);
            const opened = ctx.pages().find((p) => p !== page) ?? (await newPage);
            await opened.waitForLoadState('load');
            const button = opened.locator('button, input[type=submit]').filter({ hasText: a.browser }).first();
            await button.waitFor({ state: 'visible', timeout: 20_000 }).catch(async (e: Error) => {
              await opened.screenshot({ path: join(SHOTS, `${a.shot ?? 'browser'}-failed.png`) });
              throw new Error(`${e.message} (at ${opened.url()})`);
            });
            if (a.shot) await opened.screenshot({ path: join(SHOTS, `${a.shot}.png`) });
            await button.click();
            await opened.waitForLoadState('load');
            // The page it lands on (mcpx's "Signed in", or the editor's callback page) has its moment.
            // (The run may end meanwhile: a page gone here is no failure.)
            await opened.waitForTimeout(1500).catch(() => undefined);
            await opened.close().catch(() => undefined);
          } else if ('link' in a) {
            // A link in a notification (a toast, or the notifications center the suite opened).
            const link = page.locator('.notification-list-item-message a').filter({ hasText: a.link }).first();
            await link.waitFor({ state: 'visible', timeout: 20_000 });
            await link.click();
          } else if ('row' in a || 'rowAction' in a) {
            // A tree row with all these texts; for rowAction, its inline action with this title, hovered in.
            const [texts, action] = 'row' in a ? [a.row, undefined] : a.rowAction;
            let row = page.locator('.monaco-list-row');
            for (const t of texts) row = row.filter({ hasText: t });
            await row.first().waitFor({ state: 'visible', timeout: 20_000 });
            if (action) {
              // The view re-renders its rows as they change (progress, age), which can take a row away
              // between the hover and the click: tried again until no row has these texts any more.
              for (let attempt = 0; attempt < 5; attempt++) {
                try {
                  await row.first().hover();
                  const button = row.first().locator(`.action-label[aria-label="${action}"]`).first();
                  await button.waitFor({ state: 'visible', timeout: 5_000 });
                  await button.click();
                  if ('stays' in a) break;
                  await row.first().waitFor({ state: 'detached', timeout: 3_000 });
                  break;
                } catch (e) {
                  if (attempt === 4) throw e;
                }
              }
            }
          } else if ('see' in a || 'button' in a) {
            // An element of the workbench (a selector) with this text: seen (and shot), or clicked.
            const [sel, text] = 'see' in a ? a.see : a.button;
            const el = page.locator(sel).filter({ hasText: text }).first();
            await el.waitFor({ state: 'visible', timeout: 20_000 });
            if ('see' in a && a.shot) {
              await page.waitForTimeout(400);
              await page.screenshot({ path: join(SHOTS, `${a.shot}.png`) });
            }
            if ('button' in a) await el.click();
          } else if ('gone' in a) {
            await page.locator('.quick-input-widget').first().waitFor({ state: 'hidden', timeout: 10_000 });
          } else if ('dialog' in a) {
            const button = page.locator('.monaco-dialog-box .monaco-button').filter({ hasText: a.dialog }).first();
            await button.waitFor({ state: 'visible', timeout: 20_000 });
            await button.click();
          } else if ('webview' in a || 'app' in a) {
            // A webview's document sits two iframes down: the host frame, then the active frame; an MCP
            // App's, one further: the sandboxed frame of its page.
            const doc = page.frameLocator('iframe.webview').frameLocator('#active-frame');
            const form = 'app' in a ? doc.frameLocator('#app') : doc;
            for (const op of 'app' in a ? a.app : a.webview) {
              if ('fill' in op) {
                // The field is a web component (@vscode-elements): its input or textarea sits in its shadow
                // root, which playwright's CSS pierces.
                const n = op.fill[0];
                const input = form
                  .locator(`input[name="${n}"], textarea[name="${n}"], [name="${n}"] input, [name="${n}"] textarea`)
                  .first();
                await input.waitFor({ state: 'visible', timeout: 20_000 });
                await input.fill(op.fill[1]);
              } else if ('focused' in op) {
                // Keyboard use: the element with this name (or id) has the focus.
                await form
                  .locator(`[name="${op.focused}"]:focus-within, [id="${op.focused}"]:focus-within`)
                  .first()
                  .waitFor({ state: 'visible', timeout: 10_000 });
              } else if ('press' in op) await page.keyboard.press(op.press);
              else if ('type' in op) await page.keyboard.type(op.type);
              else if ('click' in op) await form.locator(op.click).first().click();
              else
                await form
                  .locator(op.text[0])
                  .filter({ hasText: op.text[1] })
                  .first()
                  .waitFor({ state: 'visible', timeout: 10_000 });
            }
          } else {
            if (a.when === 'webview')
              await page
                .frameLocator('iframe.webview')
                .frameLocator('#active-frame')
                .locator('#accept')
                .first()
                .waitFor({ state: 'visible', timeout: 20_000 });
            if (a.when === 'dialog')
              await page.locator('.monaco-dialog-box').first().waitFor({ state: 'visible', timeout: 20_000 });
            if (a.when === 'quick')
              await page.locator('.quick-input-widget').first().waitFor({ state: 'visible', timeout: 20_000 });
            await page.waitForTimeout(400);
            await page.screenshot({ path: join(SHOTS, `${a.shot}.png`) });
          }
        } catch (e) {
          errors.push(`${JSON.stringify(a)}: ${(e as Error).message}`);
        }
        // The run may end right after the last action closes its widget: a page gone here is no failure.
        await page.waitForTimeout(200).catch(() => undefined);
      }
    },
  };
}

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
  const d = driver();
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
