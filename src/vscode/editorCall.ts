// A call the editor makes on the person's behalf: mcpx is the client, the person is who asks (roots: the
// workspace folders), under one identity of its own (the Upstreams view, the palette, Add Server…).
import type { CallContext } from '../gateway/editorPort';
import { APP_HOST_CAPABILITIES } from '../protocol/extensions';
import { MODERN } from '../protocol/revisions';

export const EDITOR_IDENTITY = 'mcpx:editor';

/** No progress is shown unless the caller passes where to. */
export function editorContext(
  signal = new AbortController().signal,
  progress: (p: number, total?: number, message?: string) => void = () => undefined,
): CallContext {
  return {
    rev: MODERN,
    signal,
    identity: EDITOR_IDENTITY,
    // The editor renders apps (vscode/apps/): a server that offers its app tools only to such hosts
    // offers them to the palette (docs/protocol.md "Extensions across the gateway").
    clientCapabilities: APP_HOST_CAPABILITIES,
    meta: { progressToken: 'mcpx-editor' },
    progress,
    log: () => undefined,
  };
}
