// The page driver of the editor suite (test/vscode.test.ts): it reads the actions build/vscode/suite.js asks
// for on the extension host's log (test/vscode/actions.ts), and performs each on the code-server page once
// its widget is there — picks, fills, clicks, screenshots into build/screenshots.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Action } from '../vscode/actions';
import { repoRoot } from './gateway';

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
export interface Page {
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

/** Performs the actions the suite asks for, in order, each once its widget is there; says it has done a
 *  batch with a file in `acks`, named as the batch's `ack` (what the suite's `driven` waits for). */
export function driver(acks: string): {
  onLog(text: string): void;
  onPage(page: Page): Promise<void>;
  stop(): void;
  errors: string[];
} {
  const queue: Action[] = [];
  const errors: string[] = [];
  let stopped = false;
  // The loop sleeps until an action comes (or the run ends).
  let wake: (() => void) | undefined;
  return {
    errors,
    onLog(text) {
      const m = /^mcpx-drive: (.*)$/.exec(text);
      if (m) queue.push(...(JSON.parse(m[1]!) as Action[]));
      wake?.();
    },
    stop: () => {
      stopped = true;
      wake?.();
    },
    async onPage(page) {
      mkdirSync(SHOTS, { recursive: true });
      mkdirSync(acks, { recursive: true });
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
          await new Promise<void>((r) => (wake = r));
          wake = undefined;
          continue;
        }
        if ('ack' in a) {
          writeFileSync(join(acks, a.ack), '');
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
