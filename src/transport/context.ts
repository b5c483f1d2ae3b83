// What the parts of the HTTP transport are given: the server behind it, the settings, the legacy
// sessions and the log. One per listener (http.ts makes it once it listens).
import type { Settings } from '../config/settings';
import type { McpServer } from '../server/server';
import type { Affinity } from './forward';
import type { Sessions } from './sessions';

export interface HttpContext {
  readonly server: McpServer;
  readonly settings: Settings;
  readonly sessions: Sessions;
  readonly log?: (line: string) => void;
  /** In a team: where a session or a request's work lives (forward.ts). */
  readonly affinity?: Affinity;
}
