// The gateway's own tools, one module each, in their written order (docs/protocol.md "The gateway's tools
// in a fixed order"): mcpx_call first, then mcpx_exec, then discovery. The gateway lists and resolves
// its tools from this registry alone: a tool not in it cannot be called. Pass-through tools come ahead.
import { type JsonObject, isObject } from '../../protocol/jsonrpc';
import type { TaskSupport, ToolHandle } from '../../server/provider';
import { invalidArguments } from '../../protocol/errors';
import { taskSupportOf } from '../call/inFlight';
import { schemaMismatch } from '../../kit/schema';
import { mcpxCall } from './call';
import { mcpxDescribe } from './describe';
import { mcpxExec } from './exec';
import { mcpxSearch } from './search';
import { mcpxServers } from './servers';
import type { ToolView } from '../profiles/view';
import type { GatewayTool, ToolDeps } from './tool';
import { mcpxTools } from './tools';

export const GATEWAY_TOOLS: readonly GatewayTool[] = [
  mcpxCall,
  mcpxExec,
  mcpxServers,
  mcpxTools,
  mcpxDescribe,
  mcpxSearch,
];

/** A listed tool's handle: its task support and input schema as listed, and how it is called. */
export function toolHandle(name: string, listed: JsonObject, call: ToolHandle['call']): ToolHandle {
  const s = taskSupportOf(listed);
  const taskSupport: TaskSupport | undefined =
    s === 'required' || s === 'optional' || s === 'forbidden' ? s : undefined;
  return { name, taskSupport, inputSchema: isObject(listed.inputSchema) ? listed.inputSchema : undefined, call };
}

/** The registry bound to the gateway's parts: what tools/list shows and the one lookup of a call. */
export class GatewayTools {
  private readonly byName: ReadonlyMap<string, GatewayTool>;

  constructor(
    private readonly deps: ToolDeps,
    tools: readonly GatewayTool[] = GATEWAY_TOOLS,
  ) {
    this.byName = new Map(tools.map((t) => [t.definition.name, t]));
    // A name twice would list two tools and call one of them.
    if (this.byName.size !== tools.length) throw new Error('two gateway tools share a name');
  }

  /** The definitions a view lists, in the registry's order. */
  definitions(view: ToolView): JsonObject[] {
    const only = view.gatewayTools;
    return [...this.byName.values()].filter((t) => !only || only.has(t.definition.name)).map((t) => t.definition);
  }

  /** A gateway tool by name. */
  tool(name: string): GatewayTool | undefined {
    return this.byName.get(name);
  }

  /** The handle of a gateway tool the view offers: its arguments checked against its input schema, then
   *  its work. One the view does not list is unknown to it. */
  resolve(name: string, view: ToolView): ToolHandle | undefined {
    const tool = this.byName.get(name);
    if (!tool || (view.gatewayTools && !view.gatewayTools.has(name))) return undefined;
    return toolHandle(name, tool.definition, async (args, ctx) => {
      const bad = schemaMismatch(tool.definition.inputSchema, args);
      if (bad) throw invalidArguments(`Invalid arguments for ${name}: ${bad}`);
      return tool.run(args, ctx, this.deps);
    });
  }
}
