// What the gateway declares to the clients of one endpoint (docs/protocol.md "Capabilities declared only
// where delivered"): the server edge declares exactly this and nothing more.
import { UI_EXTENSION } from '../../protocol/extensions';
import { SKILLS_EXTENSION } from '../../protocol/skills';
import type { ProviderCapabilities } from '../../server/provider';

/** The capabilities of an endpoint (`listsTools`: whether its tools/list shows upstream tools, which change
 *  with their servers), in a gateway with these pass-through servers. */
export function declared(listsTools: boolean, passthrough: readonly string[]): ProviderCapabilities {
  return {
    tools: true,
    prompts: true,
    resources: true,
    completions: true,
    logging: true,
    // Gateway mode's own tools never change; the namespaced prompts and resources change with their
    // upstreams. In pass-through the tools are the upstreams' and change with them (2025-11-25
    // server/tools "List Changed Notification"): so for an endpoint that lists upstream tools.
    listChanged: { tools: listsTools, prompts: true, resources: true },
    tasks: true,
    // MCP Apps reach a host only in pass-through, where tools keep their `_meta.ui` and ui:// reads go to
    // their server (docs/gateway.md "MCP Apps"). Which upstream serves apps is known only once it has
    // seen the client declare the extension, so it is declared for any.
    // Skills (SEP-2640) reach a client in either mode, each server's under URIs the client can read back
    // (docs/gateway.md "Skills"); declared for any, like apps, and in every revision (the revision
    // table's LEGACY_DECLARED_EXTENSIONS).
    extensions: { ...(passthrough.length ? { [UI_EXTENSION]: {} } : {}), [SKILLS_EXTENSION]: {} },
  };
}
