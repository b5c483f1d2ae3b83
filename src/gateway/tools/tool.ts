// One gateway tool: its definition as listed (name, title, description, schemas, annotations) and what
// it does, together in one module under src/gateway/tools/; index.ts is the registry.
import type { Config } from '../../config/file';
import type { ServerDef } from '../../config/servers';
import type { JsonObject } from '../../protocol/jsonrpc';
import type { CallToolResult } from '../../protocol/methods';
import type { CallContext } from '../../server/provider';
import type { Pool } from '../../upstream/pool';
import type { StructuredForm } from '../surface/artifacts';
import type { Catalogue } from '../catalogue/catalogue';
import type { Exec } from '../exec/exec';
import type { Entries } from '../call/entries';
import type { Profiles } from '../profiles/profiles';

/** What the gateway's tools reach: the parts of the gateway, built before the registry. */
export interface ToolDeps {
  readonly config: Config;
  readonly defs: ReadonlyMap<string, ServerDef>;
  readonly passthrough: readonly string[];
  readonly pool: Pool;
  readonly catalogue: Catalogue;
  /** Calls to upstreams, through the call chain (call/). */
  readonly entries: Entries;
  readonly exec: Exec;
  /** What each endpoint offers, with its tool search index (profiles/profiles.ts): `profiles.of(ctx)`. */
  readonly profiles: Profiles;
  /** Told the pid of each mcpx_exec child once its sandbox is up (tests check it is gone after). */
  readonly execStarted?: (pid: number) => void;
}

export interface GatewayTool {
  /** The tool as tools/list shows it, in the newest shape; `name` is the key the registry resolves. */
  readonly definition: JsonObject & { readonly name: string; readonly inputSchema: JsonObject };
  /** Its structuredContent when a large result becomes an artifact (gateway/surface/artifacts.ts): what its
   *  outputSchema accepts in place of the whole value. None: such a result goes whole. */
  readonly artifact?: StructuredForm;
  /** Its work, given arguments already checked against `definition.inputSchema`. */
  run(args: JsonObject, ctx: CallContext, deps: ToolDeps): Promise<CallToolResult>;
}

/** An object schema of `properties`, `required` listed where there are any. */
export const obj = (properties: JsonObject, required: string[] = []): JsonObject => ({
  type: 'object',
  properties,
  ...(required.length ? { required } : {}),
});

/** A result carrying `value` both as structuredContent and as its JSON text. */
export function jsonResult(value: JsonObject): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value };
}
