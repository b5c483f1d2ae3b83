// The OpenAPI 3.1 document of the HTTP API (docs/gateway.md "The HTTP API"), built per request from the
// tools the caller is offered (gateway/surface/httpApi.ts): one operation per tool, `POST /v1/call/{server}/{tool}`
// with the tool's input schema as the body and its CallToolResult as the answer (structuredContent
// following the output schema where the tool has one), `GET /v1/tools`, and the endpoint secret as the
// bearer scheme. A tool's schema goes under components.schemas, its own `#…` references rewritten to
// point there (OpenAPI 3.1 "Schema Object": a reference resolves against the document).
import type { JsonObject } from '../protocol/jsonrpc';
import { isObject } from '../protocol/jsonrpc';
import type { OfferedTool } from '../gateway/surface/httpApi';

/** The path of a tool's call. */
export const callPath = (server: string, tool: string): string =>
  `/v1/call/${encodeURIComponent(server)}/${encodeURIComponent(tool)}`;

/** A component key: [A-Za-z0-9._-] (OpenAPI 3.1 "Components Object"), unique within `taken`. */
function keyFor(base: string, taken: Set<string>): string {
  const clean = base.replace(/[^A-Za-z0-9._-]/g, '_');
  let key = clean;
  for (let n = 2; taken.has(key); n++) key = `${clean}_${n}`;
  taken.add(key);
  return key;
}

/** `schema` with every reference inside itself (`#`, `#/$defs/x`) made to point at its new place. */
function rebased(schema: unknown, at: string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => rebased(s, at));
  if (!isObject(schema)) return schema;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(schema))
    out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#') ? `${at}${v.slice(1)}` : rebased(v, at);
  return out;
}

const ERROR_BODY = {
  type: 'object',
  properties: { error: { type: 'string' } },
  required: ['error'],
};

/** The CallToolResult shape (the newest revision's), its structuredContent `structured` where given. */
function callToolResult(structured?: JsonObject): JsonObject {
  return {
    type: 'object',
    properties: {
      content: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' } } } },
      structuredContent: structured ?? { type: 'object' },
      isError: { type: 'boolean' },
      _meta: { type: 'object' },
    },
    required: ['content'],
  };
}

/** One line of an application/x-ndjson answer. */
const STREAM_LINE = {
  type: 'object',
  properties: {
    type: { enum: ['progress', 'log', 'result', 'error'] },
    progress: { type: 'number' },
    total: { type: 'number' },
    message: { type: 'string' },
    level: { type: 'string' },
    logger: { type: 'string' },
    data: {},
    result: { $ref: '#/components/schemas/CallToolResult' },
    error: { type: 'string' },
  },
  required: ['type'],
};

/** POST /v1/complete (app/api.ts): completion/complete's params as the body, its result as the answer
 *  (2025-11-25 schema, "CompleteRequest" and "CompleteResult"). */
const COMPLETE_BODY: JsonObject = {
  type: 'object',
  properties: {
    ref: {
      oneOf: [
        {
          type: 'object',
          properties: { type: { const: 'ref/prompt' }, name: { type: 'string' } },
          required: ['type', 'name'],
        },
        {
          type: 'object',
          properties: { type: { const: 'ref/resource' }, uri: { type: 'string' } },
          required: ['type', 'uri'],
        },
      ],
    },
    argument: {
      type: 'object',
      properties: { name: { type: 'string' }, value: { type: 'string' } },
      required: ['name', 'value'],
    },
    context: { type: 'object', properties: { arguments: { type: 'object' } } },
  },
  required: ['ref', 'argument'],
};
const COMPLETE_RESULT: JsonObject = {
  type: 'object',
  properties: {
    completion: {
      type: 'object',
      properties: {
        values: { type: 'array', items: { type: 'string' }, maxItems: 100 },
        total: { type: 'integer' },
        hasMore: { type: 'boolean' },
      },
      required: ['values'],
    },
  },
  required: ['completion'],
};

const errors = (statuses: Record<string, string>): JsonObject =>
  Object.fromEntries(
    Object.entries(statuses).map(([status, description]) => [
      status,
      { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    ]),
  );

export function openApiDocument(tools: readonly OfferedTool[], opts: { version: string; base: string }): JsonObject {
  const schemas: JsonObject = {
    Error: ERROR_BODY,
    CallToolResult: callToolResult(),
    StreamLine: STREAM_LINE,
    CompleteParams: COMPLETE_BODY,
    CompleteResult: COMPLETE_RESULT,
  };
  const taken = new Set(Object.keys(schemas));
  const ids = new Set<string>();
  const paths: JsonObject = {
    '/v1/tools': {
      get: {
        operationId: 'listTools',
        summary: 'The tools this caller may call, as their servers list them',
        responses: {
          '200': {
            description: 'The tools, and the servers that could not list theirs',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    tools: { type: 'array', items: { type: 'object' } },
                    errors: { type: 'array', items: { type: 'object' } },
                  },
                  required: ['tools'],
                },
              },
            },
          },
          ...errors({ '401': 'Without the endpoint secret' }),
        },
      },
    },
    '/v1/complete': {
      post: {
        operationId: 'complete',
        summary: "Completes a prompt's or a resource template's argument, as completion/complete does",
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/CompleteParams' } } },
        },
        responses: {
          '200': {
            description: 'The values offered',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/CompleteResult' } } },
          },
          ...errors({
            '400': 'Not served as sent: the body does not match, an unknown prompt, or a permission rule refused it',
            '401': 'Without the endpoint secret',
            '415': 'The body is not application/json',
            '429': 'Too many calls in flight',
            '502': 'The upstream failed',
          }),
        },
      },
    },
  };
  for (const { server, tool } of tools) {
    const base = `${server}__${tool.name}`;
    const input = keyFor(`${base}.input`, taken);
    schemas[input] = rebased(
      isObject(tool.inputSchema) ? tool.inputSchema : { type: 'object' },
      `#/components/schemas/${input}`,
    );
    let result = 'CallToolResult';
    if (isObject(tool.outputSchema)) {
      const output = keyFor(`${base}.output`, taken);
      schemas[output] = rebased(tool.outputSchema, `#/components/schemas/${output}`);
      result = keyFor(`${base}.result`, taken);
      schemas[result] = callToolResult({ $ref: `#/components/schemas/${output}` });
    }
    const description = typeof tool.description === 'string' ? tool.description : undefined;
    const title = typeof tool.title === 'string' ? tool.title : undefined;
    paths[callPath(server, tool.name)] = {
      post: {
        operationId: keyFor(base, ids),
        summary: title ?? `${tool.name} of ${server}`,
        ...(description ? { description } : {}),
        tags: [server],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${input}` } } },
        },
        responses: {
          '200': {
            description:
              "The tool's result (isError: the tool, or mcpx's checks, refused). With Accept: application/x-ndjson, progress and log lines first, then the result's line",
            content: {
              'application/json': { schema: { $ref: `#/components/schemas/${result}` } },
              'application/x-ndjson': { schema: { $ref: '#/components/schemas/StreamLine' } },
            },
          },
          ...errors({
            '400': 'The body is not JSON, or does not match the input schema',
            '401': 'Without the endpoint secret',
            '404': 'No such tool offered to this caller',
            '413': 'The body is larger than transport.maxBodyBytes',
            '502': 'The upstream answered with an error',
          }),
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'mcpx gateway',
      version: opts.version,
      description: "The tools of mcpx's configured MCP servers, called over plain HTTP.",
    },
    servers: [{ url: opts.base }],
    security: [{ endpointSecret: [] }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        endpointSecret: {
          type: 'http',
          scheme: 'bearer',
          description: 'mcpx\'s endpoint secret (docs/security.md "The endpoint secret")',
        },
      },
    },
  };
}
