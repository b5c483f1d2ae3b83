// Questions an upstream asks the person: the QuickPick flow, declined, cancelled, dismissed into the
// Questions view and answered from there, withdrawn; URL elicitation; the view's badge and announcement.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { call, drive, driven, type Json, pageTest, recorded, shotTaken, test, textOf } from './harness';
import { until } from '../harness/wait';

export const elicitationInQuickPick = pageTest(
  'an upstream elicits: the QuickPick flow appears, the person answers, the answer reaches the upstream',
  async (x) => {
    const url = x.endpoint()!;
    const pending = call(url, 'elicit', { text: 'Your name?' });
    drive(
      { title: 'up (via mcpx) asks: Your name? — for test-agent' },
      { shot: 'elicitation-quickpick', when: 'quick' },
      { fill: 'Ada Lovelace' },
      { shot: 'elicitation-review', when: 'quick' },
      { pick: 'Accept' },
    );
    const r = await pending;
    assert.deepEqual(JSON.parse(textOf(r)), { action: 'accept', content: { answer: 'Ada Lovelace' } });
    const answered = recorded().find((f) => 'result' in f && (f.result as Json).action === 'accept');
    assert.deepEqual(
      answered?.result,
      { action: 'accept', content: { answer: 'Ada Lovelace' } },
      'the upstream received the answer',
    );
  },
);

export const dismissedAndWithdrawn = pageTest(
  'decline and cancel; dismissed, it waits in the Questions view and is answered from there; withdrawn, its QuickPick closes',
  async (x) => {
    const url = x.endpoint()!;
    const declined = call(url, 'elicit', { text: 'Again?' });
    drive({ fill: 'x' }, { pick: 'Decline' });
    assert.deepEqual(JSON.parse(textOf(await declined)), { action: 'decline' });
    const cancelled = call(url, 'elicit', { text: 'Once more?' });
    drive({ fill: 'y' }, { pick: 'Cancel' });
    assert.deepEqual(JSON.parse(textOf(await cancelled)), { action: 'cancel' });
    // Escape: not an answer. The question waits (Questions view) until its deadline, answerable later.
    const later = call(url, 'elicit', { text: 'Later?' });
    drive({ key: 'Escape' });
    const q = await until(() => x.host.gateway?.questions().find((p) => p.server === 'up'), {
      what: 'the question in the Questions view',
      every: 100,
    });
    assert.match(q.reason, /dismissed in the editor/);
    assert.ok(q.deadline > Date.now());
    const rows = (await x.questions.getChildren()) as Array<{ label: string; description: string }>;
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.label, 'up (via mcpx) asks: Later?');
    assert.match(rows[0]!.description, /^elicitation\/create · \d+ s left$/);
    await vscode.commands.executeCommand('mcpx.questions.focus');
    await driven({ shot: 'questions-view' });
    const answering = vscode.commands.executeCommand('mcpx.answerQuestion', q.id);
    drive({ fill: 'answered later' }, { pick: 'Accept' });
    await answering;
    assert.deepEqual(JSON.parse(textOf(await later)), { action: 'accept', content: { answer: 'answered later' } });
    // The calling client goes away while the QuickPick is shown: the question is withdrawn and closes.
    const ctl = new AbortController();
    const gone = call(url, 'elicit', { text: 'Going away?' }, ctl.signal).catch(() => 'aborted');
    await until(() => (x.person.open() === 1 ? true : undefined), { what: 'the question shown', every: 100 });
    await driven({ shot: 'withdrawn-before', when: 'quick' });
    ctl.abort();
    assert.equal(await gone, 'aborted');
    await until(() => (x.person.open() === 0 ? true : undefined), { what: 'the question closed', every: 100 });
    await driven({ gone: 'quick' });
    assert.equal(x.host.gateway?.questions().length, 0, 'nothing left waiting');
  },
);

export const urlElicitation = pageTest(
  'URL elicitation: the full URL and its host shown; declined, or accepted and then waited on until the upstream says the step is complete',
  async (x) => {
    const url = x.endpoint()!;
    const pending = call(url, 'elicit_url', { text: 'Connect your account' });
    drive({ shot: 'url-elicitation', when: 'quick' }, { pick: 'Decline' });
    assert.deepEqual(JSON.parse(textOf(await pending)), { action: 'decline' });
    const accepted = call(url, 'elicit_url', { text: 'Connect again' });
    drive({ pick: 'Open auth.example' });
    const acceptedText = textOf(await accepted);
    assert.ok(acceptedText.startsWith('{'), acceptedText);
    assert.deepEqual(JSON.parse(acceptedText), { action: 'accept' });
    await until(() => (x.person.completed.some((id) => id.startsWith('fx-')) ? true : undefined), {
      what: 'the completion seen in the editor',
      every: 100,
    });
  },
);

export const questionsBadge =
  test('Editor polish: a question waiting is counted on the badge, and announced while the Questions view is hidden', async (x) => {
    await vscode.commands.executeCommand('workbench.view.explorer');
    const announced = x.questionsView.announced;
    const url = x.endpoint()!;
    const pending = call(url, 'elicit', { text: 'Badge?' });
    // Escape: not an answer; the question waits in the Questions view.
    drive({ title: 'asks: Badge?' }, { key: 'Escape' });
    const q = await until(() => x.host.gateway?.questions().find((p) => p.server === 'up'), {
      what: 'the question waiting',
      every: 100,
    });
    await until(() => (x.questionsView.view.badge?.value === 1 ? true : undefined), { what: 'the badge', every: 100 });
    assert.match(String(x.questionsView.view.badge?.tooltip), /1 question waiting/);
    assert.equal(x.questionsView.announced, announced + 1, 'announced: the view was hidden');
    await vscode.commands.executeCommand('notifications.hideList');
    const t0 = Date.now();
    drive({ see: ['.activitybar .badge', '1'], shot: 'questions-badge' });
    await shotTaken('questions-badge', t0);
    const answering = vscode.commands.executeCommand('mcpx.answerQuestion', q.id);
    drive({ fill: 'badge answered' }, { pick: 'Accept' });
    await answering;
    assert.deepEqual(JSON.parse(textOf(await pending)), { action: 'accept', content: { answer: 'badge answered' } });
    await until(() => (x.questionsView.view.badge === undefined ? true : undefined), { what: 'no badge', every: 100 });
  });
