// The editor suite: integration tests that run inside a real VS Code extension host (code-server;
// scripts/vscode-host), one file per feature beside this index. The standard tests module: `run()`
// resolves when every test passed, rejects otherwise. Where a test needs a person at the real widgets, it
// logs a `mcpx-drive:` line with the actions; the runner outside (test/vscode.test.ts) performs them in
// the page with playwright — the QuickPick is answered through the workbench's own quick-input widget,
// not through an API call. The tests share one window and one fixture upstream, so they run in the
// order below (what one leaves, the next may count on).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import * as acrossChange from './acrossChange';
import * as activation from './activation';
import * as addServer from './addServer';
import * as apps from './apps';
import * as approvals from './approvals';
import * as config from './config';
import * as connectAgents from './connectAgents';
import * as forms from './forms';
import * as install from './install';
import * as pins from './pins';
import * as questions from './questions';
import * as registry from './registry';
import * as sampling from './sampling';
import * as shim from './shim';
import * as signIn from './signIn';
import * as subscriptions from './subscriptions';
import * as tasks from './tasks';
import * as toolCalls from './toolCalls';
import * as upstreams from './upstreams';
import * as walkthrough from './walkthrough';
import { DESKTOP, type EditorTest, type Exports } from './harness';

const ORDER: readonly EditorTest[] = [
  activation.activates,
  questions.elicitationInQuickPick,
  questions.dismissedAndWithdrawn,
  upstreams.upstreamsTree,
  upstreams.upstreamsSkills,
  toolCalls.paletteCall,
  forms.webviewForm,
  sampling.sampling,
  forms.webviewFormThemes,
  sampling.samplingFaithful,
  sampling.samplingTools,
  questions.urlElicitation,
  toolCalls.mediaAndOpenConfig,
  forms.formFlowBack,
  subscriptions.subscriptionsView,
  toolCalls.promptAndResource,
  tasks.backgroundCall,
  tasks.legacyTasks,
  tasks.execScript,
  shim.shimClient,
  approvals.approvalThroughShim,
  approvals.approvalInChat,
  config.roots,
  config.configChanges,
  config.chatProfile,
  config.setSecret,
  signIn.oauth,
  install.installCli,
  install.copyClientConfig,
  connectAgents.connectAgents,
  toolCalls.contextMenuCall,
  toolCalls.toolTrust,
  addServer.welcomeAddServer,
  addServer.addServerSettings,
  addServer.addServerUrl,
  registry.fromRegistry,
  questions.questionsBadge,
  upstreams.failedUpstream,
  pins.heldTool,
  apps.appsInTheEditor,
  apps.realExampleApp,
  walkthrough.walkthrough,
  acrossChange.windowReload,
  acrossChange.shimAcrossAddServer,
];

export async function run(): Promise<void> {
  const ext = vscode.extensions.getExtension('mcpx.mcpx');
  assert.ok(ext, 'the extension is installed');
  const x = (await ext.activate()) as Exports;
  let failed = 0;
  // MCPX_SUITE=smoke: what the installed .vsix must show (activation, the endpoint, a question answered,
  // and the `mcpx` launcher running the packaged CLI).
  // MCPX_SUITE_GREP=text (a developer's run): the first test and those whose name contains the text.
  const grep = process.env.MCPX_SUITE_GREP;
  // MCPX_SUITE=desktop (scripts/test-desktop.ts): every test that needs no page driver.
  const selected =
    process.env.MCPX_SUITE === 'smoke'
      ? ORDER.filter((t, i) => i < 2 || t.smoke)
      : grep
        ? ORDER.filter((t, i) => i === 0 || t.name.includes(grep))
        : ORDER;
  const runnable = DESKTOP ? selected.filter((t) => !t.page) : selected;
  for (const t of selected)
    if (!runnable.includes(t)) console.log(`mcpx-test: skipped (needs the page driver) ${t.name}`);
  for (const t of runnable) {
    const t0 = Date.now();
    try {
      await t.run(x);
      console.log(`mcpx-test: ok ${t.name} (${Date.now() - t0} ms)`);
    } catch (e) {
      failed++;
      console.log(`mcpx-test: FAILED ${t.name}: ${(e as Error).stack ?? String(e)}`);
    }
  }
  if (failed) throw new Error(`${failed} of ${runnable.length} editor tests failed`);
}
