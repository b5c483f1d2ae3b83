// The params field each method's Mcp-Name header mirrors (2026-07-28 streamable-http "Standard Request
// Headers"; the tasks extension's "Streamable HTTP: Routing Headers"), without the method table's schemas:
// the codecs spell a request's headers from it, and the stdio shim, which loads no zod (its own bundle,
// dist/shim.js), reaches it through them. The method descriptors (../methods.ts) read their `mcpName`
// from here: one table, two readers.
export interface McpName {
  readonly field: 'name' | 'uri' | 'taskId';
  /** An omission is tolerated; a contradiction is still -32020 (docs/protocol.md "Tasks"). */
  readonly optional?: boolean;
}

export const MCP_NAME: Readonly<Record<string, McpName>> = {
  'tools/call': { field: 'name' },
  'prompts/get': { field: 'name' },
  'resources/read': { field: 'uri' },
  'tasks/get': { field: 'taskId', optional: true },
  'tasks/cancel': { field: 'taskId', optional: true },
  'tasks/update': { field: 'taskId', optional: true },
};

/** The Mcp-Name source of `method`, or undefined (own rows only: "__proto__" names nothing). */
export const mcpNameOf = (method: string): McpName | undefined =>
  Object.hasOwn(MCP_NAME, method) ? MCP_NAME[method] : undefined;
