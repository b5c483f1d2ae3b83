// The editor's side of permissions and activity (src/vscode/permissions/, views/activity.ts) in plain
// Node: the approval prompt as the person reads it, closed by the call's signal, one at a time; "always
// allow" in workspaceState with the palette's old list moved in; the palette's rule after the person's;
// the Activity view's rows from a real in-memory feed, live, filtered.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ApprovalRequest } from '../../src/gateway/permissions/approval';
import { decide } from '../../src/gateway/permissions/rules';
import { EDITOR_IDENTITY } from '../../src/vscode/editorCall';
import { EditorApprover, approvalPrompt, foldArguments } from '../../src/vscode/permissions/approver';
import { EDITOR_RULE, withEditorRule } from '../../src/vscode/permissions/editorRule';
import { WorkspaceGrants } from '../../src/vscode/permissions/grants';
import { fakeMemento } from '../vscode-fakes/editor';
import { until } from '../harness/wait';

const request = (over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  id: 'a1',
  kind: 'tool',
  client: { name: 'Claude Code', identity: 'client:abc', revision: '2025-11-25', transport: 'shim' },
  path: 'pass-through',
  server: 'github',
  target: 'delete_repo',
  arguments: { repo: 'octo/x', note: 'n'.repeat(100) },
  argsDigest: 'd',
  annotations: { destructiveHint: true },
  rule: 'permissions.rules[1]',
  deadline: Date.now() + 60_000,
  ...over,
});

/** A window whose QuickPick waits until the test answers it, or its token is cancelled. */
function heldWindow() {
  const shown: Array<{ title: string; placeHolder: string; labels: string[]; answer(label?: string): void }> = [];
  const window = {
    showQuickPick(
      items: Array<{ label: string }>,
      o: { title: string; placeHolder: string },
      token: { onCancellationRequested(l: () => void): unknown },
    ) {
      return new Promise((resolve) => {
        const answer = (label?: string) => resolve(label ? items.find((i) => i.label === label) : undefined);
        token.onCancellationRequested(() => answer(undefined));
        shown.push({ title: o.title, placeHolder: o.placeHolder, labels: items.map((i) => i.label), answer });
      });
    },
  };
  return { window: window as never, shown };
}

describe('the approval prompt', () => {
  test('names the client (declared name and identity), the server, the tool, the path and the rule; arguments folded; hints as the server’s', () => {
    const p = approvalPrompt(request({ path: 'mcpx_exec', run: 'run-7' }));
    assert.equal(
      p.title,
      'mcpx: "Claude Code" (client:abc) wants to call github/delete_repo in mcpx_exec run run-7 (permissions.rules[1])',
    );
    assert.equal(
      p.placeHolder,
      `The server says (untrusted hints): destructive (destructiveHint: true) · arguments: {"repo":"octo/x","note":"${'n'.repeat(60)}…(100 chars)"}`,
    );
    assert.deepEqual(
      p.choices.map((c) => [c.label, c.answer]),
      [
        ['Allow once', 'once'],
        ['Allow delete_repo for Claude Code until the gateway stops', 'session'],
        ['Always allow', 'always'],
        ['Deny', 'deny'],
        ['Show the whole arguments', undefined],
      ],
    );
    assert.equal(
      p.choices[4]!.detail,
      `{"repo":"octo/x","note":"${'n'.repeat(60)}…(100 chars)"}`,
      'the arguments as list text too',
    );
    const left = /^the agent is told it was refused \(so is it, unanswered, in (\d+) s\)$/.exec(
      p.choices[3]!.description!,
    );
    assert.ok(left && Number(left[1]) <= 60, 'the time left before permissions.askTimeout denies it');
    assert.equal(foldArguments({ a: { b: { c: { d: 1 } } } }), '{"a":{"b":{"c":"{…}"}}}');
    assert.equal(
      approvalPrompt(request({ kind: 'resource', target: 'file:///x', annotations: undefined })).placeHolder.includes(
        'server says',
      ),
      false,
    );
  });

  test("a guardrail's question: what was found and where, never the text; pass it on or block it", async () => {
    const findings = [
      {
        detector: 'secrets',
        kind: 'aws',
        rule: 'guardrails.rules[0]',
        action: 'ask',
        where: 'result.content[0].text',
        count: 2,
      },
      {
        detector: 'pii',
        kind: 'email',
        rule: 'guardrails.rules[1]',
        action: 'ask',
        where: 'result.structuredContent.email',
        count: 1,
      },
    ] as const;
    const r = request({ target: 'read', screened: { what: 'the result', findings } });
    const p = approvalPrompt(r);
    assert.equal(
      p.title,
      'mcpx: "Claude Code" (client:abc) — pass on the result (github/read)? Guardrails found secrets/aws, pii/email in it (guardrails.rules[0], guardrails.rules[1])',
    );
    assert.equal(p.placeHolder, 'found at result.content[0].text, result.structuredContent.email');
    assert.deepEqual(
      p.choices.map((c) => [c.label, c.answer]),
      [
        ['Pass it on', 'once'],
        ['Block it', 'deny'],
      ],
    );
    const { window, shown } = heldWindow();
    const approver = new EditorApprover({ window, showJson: async () => undefined });
    const answer = approver.ask(r, new AbortController().signal);
    await until(() => shown.length === 1);
    shown[0]!.answer('Block it');
    assert.equal(await answer, 'deny');
  });

  test('answers as picked; the whole arguments shown on request, then asked again; Escape denies', async () => {
    const { window, shown } = heldWindow();
    const docs: unknown[] = [];
    const approver = new EditorApprover({ window, showJson: async (_t, v) => void docs.push(v) });
    const answer = approver.ask(request(), new AbortController().signal);
    await until(() => shown.length === 1);
    shown[0]!.answer('Show the whole arguments');
    await until(() => shown.length === 2);
    assert.deepEqual(docs, [request().arguments]);
    shown[1]!.answer('Allow delete_repo for Claude Code until the gateway stops');
    assert.equal(await answer, 'session');
    const dismissed = approver.ask(request(), new AbortController().signal);
    await until(() => shown.length === 3);
    shown[2]!.answer(undefined);
    assert.equal(await dismissed, 'deny');
  });

  test('one prompt at a time; the call’s signal closes its prompt, and a waiting one whose signal ends is never shown', async () => {
    const { window, shown } = heldWindow();
    const approver = new EditorApprover({ window, showJson: async () => undefined });
    const first = new AbortController();
    const second = new AbortController();
    const a = approver.ask(request({ target: 'one' }), first.signal);
    const b = approver.ask(request({ target: 'two' }), second.signal);
    const c = approver.ask(request({ target: 'three' }), new AbortController().signal);
    await until(() => shown.length === 1);
    second.abort(new Error('timed out'));
    first.abort(new Error('cancelled'));
    await assert.rejects(a, /cancelled/);
    await assert.rejects(b, /timed out/);
    await until(() => shown.length === 2);
    assert.match(shown[1]!.title, /github\/three/, 'the aborted second was skipped');
    shown[1]!.answer('Allow once');
    assert.equal(await c, 'once');
  });
});

describe('"always allow" in workspaceState, and the palette rule', () => {
  test('grants are kept, listed and removed; the old palette list is moved in once as editor grants', async () => {
    const memento = fakeMemento({ 'mcpx.toolTrust.allowed': ['up/count', 'web/fetch/deep'] });
    const grants = new WorkspaceGrants(memento);
    assert.equal(await grants.migrate(5), 2);
    assert.deepEqual(
      grants.list().map((g) => [g.kind, g.server, g.tool, g.client, g.createdAt]),
      [
        ['tool', 'up', 'count', EDITOR_IDENTITY, 5],
        ['tool', 'web', 'fetch/deep', EDITOR_IDENTITY, 5],
      ],
    );
    assert.equal(memento.values['mcpx.toolTrust.allowed'], undefined);
    assert.equal(await grants.migrate(), 0, 'once');
    await grants.add({ id: 'x', kind: 'tool', server: 's', tool: 't', client: 'Claude', createdAt: 1 });
    assert.equal(new WorkspaceGrants(memento).list().length, 3, 'read back from the memento (a window reload)');
    assert.equal(await grants.remove('x'), true);
    assert.equal(await grants.remove('x'), false);
    assert.equal(grants.list().length, 2);
  });

  test('the palette rule follows the person’s rules, asks only the editor — about every tool, a readOnlyHint being the server’s claim — and never widens a deny or ask default', () => {
    const p = withEditorRule({ default: 'allow', askTimeoutMs: 1, rules: [{ server: 'up', action: 'allow' }] });
    assert.deepEqual(p.rules, [{ server: 'up', action: 'allow' }, EDITOR_RULE]);
    const subject = { kind: 'tool' as const, server: 'web', target: 't', identity: EDITOR_IDENTITY };
    assert.equal(decide(p, subject).action, 'ask');
    assert.equal(decide(p, { ...subject, annotations: { readOnlyHint: true } }).action, 'ask');
    assert.equal(decide(p, { ...subject, identity: 'client:abc' }).action, 'allow');
    assert.equal(decide(p, { ...subject, server: 'up' }).action, 'allow', 'the person’s rule first');
    for (const d of ['deny', 'ask'] as const)
      assert.deepEqual(withEditorRule({ default: d, askTimeoutMs: 1, rules: [] }).rules, []);
    assert.deepEqual(withEditorRule(undefined).rules, [EDITOR_RULE]);
  });
});
