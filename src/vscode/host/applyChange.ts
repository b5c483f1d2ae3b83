// What the editor does when what the gateway is made of changes (.vscode/mcp.json, mcpx.servers, an
// mcpx.* setting, a credential, the workspace's trust): the change applied in place (Gateway.reload;
// docs/gateway.md "Changing the configuration") — sessions, streams, tasks and unchanged servers kept —
// or, where the listener itself must change (port, address…), a restart. Free of `vscode`, so the
// choice is tested in plain Node (test/vscode/editor-reload.test.ts).
import type { Config } from '../../config/file';
import type { Settings } from '../../config/settings';
import { AT_NEXT_START, type ConfigDiff, ReloadError, describeDiff } from '../../gateway/reload';

export interface ChangeTarget {
  readonly settings: Settings;
  reload(config: Config, settings: Settings): Promise<ConfigDiff>;
}

export interface ChangeDeps {
  /** The full restart: stop, then start with the new sources. */
  restart(): Promise<void>;
  log(line: string): void;
  /** An error the person must see (a notification). */
  showError(message: string): void;
}

export type ChangeOutcome = 'reloaded' | 'restarted' | 'refused';

/** The settings among `AT_NEXT_START` whose value differs: each needs a new listener. */
function listenerChanges(running: Settings, next: Settings): string[] {
  return AT_NEXT_START.filter((k) => JSON.stringify(running.get(k)) !== JSON.stringify(next.get(k)));
}

export async function applyChange(
  gateway: ChangeTarget,
  config: Config,
  settings: Settings,
  d: ChangeDeps,
): Promise<ChangeOutcome> {
  const listener = listenerChanges(gateway.settings, settings);
  if (listener.length) {
    d.log(`${listener.join(', ')} changed: restarting the gateway`);
    await d.restart();
    return 'restarted';
  }
  try {
    d.log(`configuration changed: ${describeDiff(await gateway.reload(config, settings))}`);
    return 'reloaded';
  } catch (e) {
    if (!(e instanceof ReloadError)) throw e;
    d.log(e.message);
    d.showError(`mcpx: ${e.message}`);
    return 'refused';
  }
}
