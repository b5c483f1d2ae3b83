// Permissions in the editor: an agent's call through the stdio shim that a rule says `ask` stops at the
// editor's approval prompt — its client, tool, path and arguments shown —; Allow once runs it, Deny
// refuses the next (the agent reads the rule's message, the upstream never sees it); the Activity view
// then lists both under the agent's declared name. VS Code's chat gateway asks through the same prompt and
// keeps "always" in the same workspace grants.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { shimAgent } from './acrossChange';
import { drive, driven, type Json, mcp, pageTest, RECORD, recorded, textOf } from './harness';
import { until } from '../harness/wait';

const AGENT = 'approval-agent';

/** The Activity view's rows, as the extension makes them (src/vscode/views/activity.ts). */
interface ActivityRows {
  rows(): Array<{ label: string; children?: Array<{ label: string; description: string; tooltip: string }> }>;
}

export const approvalThroughShim = pageTest(
  'Permissions: an agent’s call through the shim that a rule asks about waits at the editor’s prompt (client, tool, path, arguments); Allow once runs it, Deny refuses the next without reaching the upstream; the Activity view shows both',
  async (x) => {
    const cfg = () => vscode.workspace.getConfiguration('mcpx');
    const gateway = x.host.gateway as unknown as { permissions(): { rules: Json[] } };
    await cfg().update(
      'permissions',
      { rules: [{ client: AGENT, server: 'up', action: 'ask' }] },
      vscode.ConfigurationTarget.Global,
    );
    await until(
      () =>
        (x.host.gateway as unknown as typeof gateway | undefined)?.permissions().rules[0]?.client === AGENT
          ? true
          : undefined,
      { what: 'the rule in force', every: 100 },
    );
    const agent = shimAgent();
    try {
      await agent.rpc('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: AGENT, version: '1.0.0' },
      });
      agent.notify('notifications/initialized');
      const call = (text: string) =>
        agent.rpc('tools/call', {
          name: 'mcpx_call',
          arguments: { server: 'up', tool: 'echo', arguments: { text, note: 'n'.repeat(200) } },
        });

      const allowed = call('approve me');
      drive(
        { title: `"${AGENT}"` },
        {
          see: [
            '.quick-input-widget .quick-input-title',
            'wants to call up/echo through mcpx_call (permissions.rules[0])',
          ],
        },
        { see: ['.quick-input-list', `{"text":"approve me","note":"${'n'.repeat(60)}…(200 chars)"}`] },
        { see: ['.quick-input-list', `Allow echo for ${AGENT} until the gateway stops`] },
        { shot: 'approval-prompt', when: 'quick' },
        { pick: 'Allow once' },
      );
      const ok = (await allowed).result as Json;
      assert.equal(textOf(ok), 'approve me');
      assert.ok(
        recorded().some((f) => JSON.stringify(f).includes('approve me')),
        'the upstream received the call allowed once',
      );

      const refused = call('deny me');
      drive({ title: `"${AGENT}"` }, { pick: 'Deny' });
      const denied = (await refused).result as Json;
      assert.equal(denied.isError, true);
      assert.match(
        textOf(denied),
        /^mcpx refused the call of up\/echo: permissions\.rules\[0\] asks the person first, and denied by the person/,
      );
      assert.ok(!recorded().some((f) => JSON.stringify(f).includes('deny me')), 'the upstream never saw it');

      const activity = (x as unknown as { activity: ActivityRows }).activity;
      const group = await until(
        () => activity.rows().find((r) => r.label === AGENT && (r.children?.length ?? 0) >= 2),
        { what: 'both calls in the Activity view', every: 100 },
      );
      const [last, first] = group.children!;
      assert.match(last!.description, /^denied · mcpx_call · /);
      assert.match(first!.description, /^ok · mcpx_call · /);
      assert.match(first!.tooltip, /decision: ask by permissions\.rules\[0\] \(the person: allow once\)/);
      assert.match(first!.tooltip, /\(shim, 2025-11-25\)/);
      await vscode.commands.executeCommand('mcpx.activity.focus');
      // The driver's screenshot is taken before the next test changes the view.
      await driven(
        { row: [AGENT, '2 calls'] },
        { row: ['up/echo', 'denied · mcpx_call'] },
        { see: ['.monaco-list-row', 'ok · mcpx_call'], shot: 'activity-view' },
      );
    } finally {
      await agent.end();
      await cfg().update('permissions', undefined, vscode.ConfigurationTarget.Global);
    }
  },
);

interface Grants {
  grants(): Array<{ id: string; server: string; tool: string; client: string }>;
  revokeGrant(id: string): Promise<boolean>;
  permissions(): { rules: Json[] };
  servers(): Array<{ name: string }>;
}

export const approvalInChat = pageTest(
  'Permissions: a call through VS Code’s chat gateway asks through the same editor prompt; its "always" is a grant of the same workspace store, and the next call goes without asking',
  async (x) => {
    const cfg = () => vscode.workspace.getConfiguration('mcpx');
    const file = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, '.vscode', 'mcp.json');
    const up = (JSON.parse(readFileSync(file.fsPath, 'utf8')) as { servers: Record<string, Json> }).servers.up!;
    const main = () => x.host.gateway as unknown as Grants | undefined;
    // A server of the user setting (VS Code does not run it itself): the chat's gateway is offered it.
    await cfg().update(
      'servers',
      {
        mine: {
          ...up,
          args: (up.args as string[]).map((a) => (a === 'up' ? 'mine' : a === RECORD() ? `${RECORD()}.mine` : a)),
        },
      },
      vscode.ConfigurationTarget.Global,
    );
    await cfg().update(
      'permissions',
      { rules: [{ server: 'mine', action: 'ask' }] },
      vscode.ConfigurationTarget.Global,
    );
    try {
      await until(
        () =>
          main()
            ?.servers()
            .some((s) => s.name === 'mine') && main()?.permissions().rules[0]?.server === 'mine'
            ? true
            : undefined,
        { what: 'the server and the rule in force', every: 100 },
      );
      const token = new vscode.CancellationTokenSource().token;
      const defs = (await x.mcpDefinitions.provideMcpServerDefinitions(token)) as vscode.McpHttpServerDefinition[];
      const url = defs[0]!.uri.toString();
      const call = (text: string) =>
        mcp(url, 'tools/call', { name: 'mcpx_call', arguments: { server: 'mine', tool: 'echo', arguments: { text } } });
      const first = call('from the chat');
      drive(
        { title: '"test-agent"' },
        { see: ['.quick-input-widget .quick-input-title', 'wants to call mine/echo through mcpx_call'] },
        { pick: 'Always allow' },
      );
      assert.equal(textOf(await first), 'from the chat');
      const grant = await until(
        () =>
          main()
            ?.grants()
            .find((g) => g.server === 'mine' && g.tool === 'echo'),
        { what: 'the grant, listed by the main gateway', every: 100 },
      );
      assert.equal(grant.client, 'test-agent');
      assert.ok(
        x.grants.list().some((g) => g.server === 'mine'),
        'kept in workspaceState',
      );
      // Granted: no prompt this time (an unanswered one would hold the call until askTimeout).
      assert.equal(textOf(await call('again')), 'again');
      assert.equal(await main()!.revokeGrant(grant.id), true);
    } finally {
      await cfg().update('permissions', undefined, vscode.ConfigurationTarget.Global);
      await cfg().update('servers', undefined, vscode.ConfigurationTarget.Global);
      await until(() => (main()?.servers().length === 1 ? true : undefined), {
        what: 'back to the workspace servers',
        every: 100,
      });
    }
  },
);
