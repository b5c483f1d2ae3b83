// Every command the extension contributes (package.json contributes.commands, in its order; docs/commands.md
// is generated from there), with its module. All are registered at activation, for the extension's whole
// life; one that needs the gateway says why while none runs (command.ts `invoke`).
import type { Disposable } from '../lifetimes';
import { addServer } from './addServer';
import { answerQuestion } from './answerQuestion';
import { callTool } from './callTool';
import { cancelTask } from './cancelTask';
import { type Command, type Deps, type GatewayCommand, invoke } from './command';
import { connectAgents, repairAgents } from './connectAgents';
import { copyClientConfig } from './copyClientConfig';
import { copyEndpoint } from './copyEndpoint';
import { filterActivity } from './filterActivity';
import { getPrompt } from './getPrompt';
import { installCli } from './installCli';
import { managePermissions } from './managePermissions';
import { menu } from './menu';
import { openConfig } from './openConfig';
import { openWalkthrough } from './openWalkthrough';
import { readResource } from './readResource';
import { restartUpstream } from './restartUpstream';
import { acceptHeldTools, reviewHeldTools } from './reviewHeldTools';
import { runInBackground } from './runInBackground';
import { setSecret } from './setSecret';
import { showActivityRecord } from './showActivityRecord';
import { showApp } from './showApp';
import { showLog } from './showLog';
import { showQuestions } from './showQuestions';
import { showTaskCalls } from './showTaskCalls';
import { showTaskResult } from './showTaskResult';
import { showUpstreamLog } from './showUpstreamLog';
import { signIn } from './signIn';
import { signOut } from './signOut';
import { stopUpstream } from './stopUpstream';
import { task } from './task';
import { uninstallCli } from './uninstallCli';
import { updateServer } from './updateServer';

export const COMMANDS: Readonly<Record<string, Command | GatewayCommand>> = {
  'mcpx.callTool': callTool,
  'mcpx.addServer': addServer,
  'mcpx.readResource': readResource,
  'mcpx.getPrompt': getPrompt,
  'mcpx.restartUpstream': restartUpstream,
  'mcpx.stopUpstream': stopUpstream,
  'mcpx.updateServer': updateServer,
  'mcpx.signIn': signIn,
  'mcpx.signOut': signOut,
  'mcpx.openConfig': openConfig,
  'mcpx.showLog': showLog,
  'mcpx.showUpstreamLog': showUpstreamLog,
  'mcpx.copyEndpoint': copyEndpoint,
  'mcpx.copyClientConfig': copyClientConfig,
  'mcpx.connectAgents': connectAgents,
  'mcpx.repairAgents': repairAgents,
  'mcpx.installCli': installCli,
  'mcpx.uninstallCli': uninstallCli,
  'mcpx.setSecret': setSecret,
  'mcpx.managePermissions': managePermissions,
  'mcpx.reviewHeldTools': reviewHeldTools,
  'mcpx.acceptHeldTools': acceptHeldTools,
  'mcpx.filterActivity': filterActivity,
  'mcpx.showTaskCalls': showTaskCalls,
  'mcpx.showActivityRecord': showActivityRecord,
  'mcpx.answerQuestion': answerQuestion,
  'mcpx.task': task,
  'mcpx.cancelTask': cancelTask,
  'mcpx.showTaskResult': showTaskResult,
  'mcpx.showQuestions': showQuestions,
  'mcpx.runInBackground': runInBackground,
  'mcpx.menu': menu,
  'mcpx.openWalkthrough': openWalkthrough,
  'mcpx.showApp': showApp,
};

/** Registers every command of the table; the disposables are the extension's. */
export function registerCommands(
  commands: { registerCommand(id: string, run: (...args: unknown[]) => unknown): Disposable },
  d: Deps,
): Disposable[] {
  return Object.entries(COMMANDS).map(([id, c]) =>
    commands.registerCommand(id, (...args: unknown[]) => invoke(c, d, args)),
  );
}
