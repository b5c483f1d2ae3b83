// Signing in to an upstream (OAuth): the notification, the consent page in the browser, the row signed in,
// Sign Out revoking, Sign In again from the row.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import * as vscode from 'vscode';
import { drive, type Json, mcp, pageTest, textOf, type TreeNode } from './harness';
import { until } from '../harness/wait';

export const oauth = pageTest(
  'OAuth: a call needs a sign-in; the notification names the server and its authorization server; Sign In opens the consent page in the browser; the view shows signed in; the call succeeds; Sign Out revokes',
  async (x) => {
    const file = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, '.vscode', 'mcp.json');
    const up = (JSON.parse(readFileSync(file.fsPath, 'utf8')) as { servers: Record<string, Json> }).servers.up!;
    // test/fixtures/oauth beside the fixture upstream: an authorization server with a consent page, and an
    // MCP server that wants its tokens.
    const script = join(dirname(dirname(String((up.args as string[])[0]))), 'oauth', 'server.js');
    const fx = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      const ready = JSON.parse(
        await new Promise<string>((r) => createInterface({ input: fx.stdout! }).once('line', r)),
      ) as { issuer: string; mcp: string; admin: string };
      await vscode.workspace
        .getConfiguration('mcpx')
        .update('servers', { secure: { type: 'http', url: ready.mcp } }, vscode.ConfigurationTarget.Global);
      await until(() => x.host.gateway?.servers().some((s) => s.name === 'secure'), {
        what: 'the secure server configured',
        every: 100,
      });
      await vscode.commands.executeCommand('mcpx.upstreams.focus');
      const url = x.endpoint()!;
      const call = mcp(url, 'tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'secure', tool: 'echo', arguments: { text: 'signed in and called' } },
      });
      await until(() => x.host.gateway!.signInState('secure') === 'signing-in', {
        what: 'the sign-in asked for',
        every: 100,
        timeout: 10_000,
      }).catch((e: Error) => {
        throw new Error(
          `${e.message}: ${x.host.gateway!.signInState('secure')} ${JSON.stringify(x.host.gateway!.servers())}`,
        );
      });
      // The notifications center, where the toast is whether or not it is still shown as one.
      await new Promise((r) => setTimeout(r, 1000));
      await vscode.commands.executeCommand('notifications.showList');
      // The notification names the server and the authorization server's host; only Sign In opens anything.
      drive(
        {
          toast: 'Sign In',
          has: `"secure" asks you to sign in at ${new URL(ready.issuer).host}`,
          shot: 'oauth-notification',
        },
        { browser: 'Approve', shot: 'oauth-consent' },
      );
      const r = await call;
      await vscode.commands.executeCommand('notifications.hideList');
      assert.equal(textOf(r), 'signed in and called');
      assert.equal(x.host.gateway!.signInState('secure'), 'signed-in');
      const roots = (await x.upstreams.getChildren()) as TreeNode[];
      const item = await x.upstreams.getTreeItem(roots.find((n) => n.name === 'secure')!);
      assert.match(String(item.description), /^running · signed in · 2025-06-18 · http$/);
      assert.match(String(item.contextValue), /\.signedIn$/);
      // The row photographed before it changes again (the driver works through its queue at its own pace).
      const shot = join(dirname(dirname(dirname(dirname(script)))), 'screenshots', 'oauth-signed-in.png');
      rmSync(shot, { force: true });
      drive({ row: ['secure', 'signed in'] }, { shot: 'oauth-signed-in' });
      await until(() => existsSync(shot), { what: 'the signed-in row photographed', every: 100, timeout: 40_000 });
      // No token went to a setting.
      const log = (await (await fetch(`${ready.admin}/log`)).json()) as { secrets: string[] };
      const settings = JSON.stringify(vscode.workspace.getConfiguration('mcpx'));
      for (const secret of log.secrets) assert.ok(!settings.includes(secret));
      // Sign Out: the tokens are revoked at the authorization server and the row asks for a sign-in again.
      await vscode.commands.executeCommand('mcpx.signOut', 'secure');
      assert.equal(x.host.gateway!.signInState('secure'), 'needs-sign-in');
      const after = (await (await fetch(`${ready.admin}/log`)).json()) as {
        requests: Array<{ path: string }>;
        tokens: Array<{ kind: string; revoked: boolean }>;
      };
      assert.ok(after.requests.some((q) => q.path === '/revoke'));
      assert.deepEqual(
        after.tokens.filter((t) => t.kind !== 'code' && !t.revoked),
        [],
      );
      // Signing in again from the row's inline Sign In action (a click: the browser opens a page only on
      // a person's gesture): no second question, straight to the browser.
      drive({ rowAction: [['secure', 'needs sign-in'], 'Sign In to Server…'] }, { browser: 'Approve' });
      await until(() => x.host.gateway!.signInState('secure') === 'signed-in', {
        what: 'signed in again',
        every: 100,
        timeout: 60_000,
      });
      const r2 = await mcp(url, 'tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'secure', tool: 'echo', arguments: { text: 'signed in again' } },
      });
      assert.equal(textOf(r2), 'signed in again');
    } finally {
      await vscode.workspace.getConfiguration('mcpx').update('servers', undefined, vscode.ConfigurationTarget.Global);
      fx.stdin!.end();
    }
  },
);
