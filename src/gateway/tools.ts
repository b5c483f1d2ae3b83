// The gateway's own tools, in their written order (docs/protocol.md "The gateway's tools in a fixed order"): mcpx_call first,
// then mcpx_exec, then discovery. Pass-through tools come ahead of them.
import type { JsonObject } from '../protocol/jsonrpc';

const obj = (properties: JsonObject, required: string[] = []): JsonObject => ({
  type: 'object',
  properties,
  ...(required.length ? { required } : {}),
});

export const FIXED_TOOLS: readonly JsonObject[] = [
  {
    name: 'mcpx_call',
    title: 'Call a tool of a configured server',
    description:
      "Call `tool` on the configured MCP server `server` with `arguments`. The result is the upstream's own, verbatim. `timeoutSec` may lower the gateway's call timeout for this call, never raise it.",
    inputSchema: obj(
      {
        server: { type: 'string', description: 'A configured server name (see mcpx_servers).' },
        tool: { type: 'string', description: 'The tool name as the server lists it (see mcpx_tools).' },
        arguments: { type: 'object', description: "The tool's arguments.", additionalProperties: true },
        timeoutSec: {
          type: 'number',
          exclusiveMinimum: 0,
          description: 'A shorter timeout for this call, in seconds.',
        },
      },
      ['server', 'tool'],
    ),
    annotations: { openWorldHint: true },
    // A long upstream call may run as a task (2025-11-25 server/tools "Tool-Level Negotiation"); spelled
    // only to 2025-11-25 (the revision table's Tool.execution).
    execution: { taskSupport: 'optional' },
  },
  {
    name: 'mcpx_exec',
    title: 'Run a script that calls tools',
    description:
      'Run `script`, the body of an async JavaScript function, in a sandbox (docs/exec.md). In scope is `mcpx`: `mcpx.call(server, tool, args)`, `mcpx.servers.<server>.<tool>(args)` (names as identifiers: other characters become `_`; declarations from mcpx_describe), `mcpx.read(uri)`, `mcpx.prompt(name, args)`; and `console`. Nothing else: no require, import, process, fetch or timers. What it returns (JSON) and what it logs are the result; a throw is an error result with its stack. `timeoutSec` replaces exec.timeout (120 s) for this run.',
    inputSchema: obj(
      {
        script: {
          type: 'string',
          description:
            "The body of an async function, e.g. `const a = await mcpx.call('notes', 'search', {q: 'x'}); return a.content.length;`",
        },
        timeoutSec: {
          type: 'number',
          exclusiveMinimum: 0,
          description: 'The timeout of this run, in seconds (default exec.timeout).',
        },
      },
      ['script'],
    ),
    outputSchema: obj({ result: {}, logs: { type: 'array', items: { type: 'string' } } }, ['result', 'logs']),
    annotations: { openWorldHint: true },
    // A run may be long: it may run as a task, like mcpx_call (2025-11-25 server/tools "Tool-Level
    // Negotiation").
    execution: { taskSupport: 'optional' },
  },
  {
    name: 'mcpx_servers',
    title: 'Configured MCP servers',
    description: 'Every configured server with its state, era, protocol revision, transport and last error.',
    inputSchema: obj({}),
    outputSchema: obj({ servers: { type: 'array', items: { type: 'object' } } }, ['servers']),
    annotations: { readOnlyHint: true },
  },
  {
    name: 'mcpx_tools',
    title: 'Find tools across servers',
    description:
      'List the tools of every server (or one), optionally filtered by a case-insensitive `query` on name, title and description.',
    inputSchema: obj({ query: { type: 'string' }, server: { type: 'string' } }),
    outputSchema: obj(
      { tools: { type: 'array', items: { type: 'object' } }, errors: { type: 'array', items: { type: 'object' } } },
      ['tools'],
    ),
    annotations: { readOnlyHint: true },
  },
  {
    name: 'mcpx_describe',
    title: 'Describe one tool',
    description:
      "One tool's title, description, input and output schemas and annotations, and `typescript`: the declarations of the function an mcpx_exec script calls it by. Without `tool`: the declarations of every tool of the server.",
    inputSchema: obj({ server: { type: 'string' }, tool: { type: 'string' } }, ['server']),
    outputSchema: obj(
      {
        server: { type: 'string' },
        tool: { type: 'object' },
        tools: { type: 'array', items: { type: 'string' } },
        typescript: { type: 'string' },
      },
      ['server', 'typescript'],
    ),
    annotations: { readOnlyHint: true },
  },
];

export const FIXED_NAMES = new Set(FIXED_TOOLS.map((t) => String(t.name)));

/** A result carrying `value` both as structuredContent and as its JSON text. */
export function jsonResult(value: JsonObject): JsonObject {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value };
}
