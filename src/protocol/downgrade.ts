// The one edge: results and notifications are built in the 2026-07-28 shape and spelled down here for
// the revision they go to. Always a copy, never an edit: a stored result may be handed out again.
import { type JsonObject, isObject } from './jsonrpc';
import { type Revision, CONTENT_TYPES, META_KEYS, STRUCTURED_ANY_VALUE, hasField, inSpan } from './revisions';

/** Nested positions of each shape: field -> shape of its value (`[]` marks an array). */
const TREE: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  ListToolsResult: { tools: 'Tool[]' },
  CallToolResult: { content: 'Content[]' },
  ListPromptsResult: { prompts: 'Prompt[]' },
  Prompt: { arguments: 'PromptArgument[]' },
  GetPromptResult: { messages: 'PromptMessage[]' },
  PromptMessage: { content: 'Content' },
  ListResourcesResult: { resources: 'Resource[]' },
  Resource: { annotations: 'Annotations' },
  ListResourceTemplatesResult: { resourceTemplates: 'ResourceTemplate[]' },
  ResourceTemplate: { annotations: 'Annotations' },
  ReadResourceResult: { contents: 'ResourceContents[]' },
  Content: { annotations: 'Annotations', resource: 'ResourceContents' },
  InitializeResult: { serverInfo: 'Implementation', capabilities: 'ServerCapabilities' },
  ClientCapabilities: {
    roots: 'RootsCapability',
    elicitation: 'ElicitationCapability',
    sampling: 'SamplingCapability',
  },
};

/** The result shape of each method whose results carry nested shapes. */
const RESULT_SHAPE: Readonly<Record<string, string>> = {
  initialize: 'InitializeResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
};

function stripMeta(meta: unknown, rev: Revision): JsonObject | undefined {
  if (!isObject(meta)) return undefined;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(meta)) if (!META_KEYS[k] || inSpan(rev, META_KEYS[k])) out[k] = v;
  return Object.keys(out).length ? out : undefined;
}

/** Copy `obj` without the fields `rev` does not define for `shape`, walking its nested shapes. */
function spell(shape: string, obj: JsonObject, rev: Revision): JsonObject {
  const src = shape === 'Content' ? rewriteContent(obj, rev) : obj;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(src)) {
    if (!hasField(shape, k, rev)) continue;
    if (shape.endsWith('Result') && !hasField('Result', k, rev)) continue;
    if (k === '_meta') {
      const m = stripMeta(v, rev);
      if (m) out._meta = m;
      continue;
    }
    const child = TREE[shape]?.[k];
    if (child?.endsWith('[]') && Array.isArray(v)) {
      const s = child.slice(0, -2);
      out[k] = v.map((x) => (isObject(x) ? spell(s, x, rev) : x));
    } else if (child && isObject(v)) {
      out[k] = spell(child, v, rev);
    } else {
      out[k] = v;
    }
  }
  if (shape === 'Tool') spellOutputSchema(out, rev);
  return out;
}

/** A content block type the revision lacks is rewritten, never dropped (documented in docs/protocol.md):
 *  audio before 2025-03-26 becomes an embedded blob resource (nothing lost); resource_link before
 *  2025-06-18 becomes a text block naming the link, which the client can still read. */
function rewriteContent(block: JsonObject, rev: Revision): JsonObject {
  const type = String(block.type);
  const span = CONTENT_TYPES[type];
  if (!span || inSpan(rev, span)) return block;
  if (type === 'audio') {
    const r: JsonObject = { uri: 'mcpx://inline/audio', blob: block.data };
    if (typeof block.mimeType === 'string') r.mimeType = block.mimeType;
    return { type: 'resource', resource: r, ...(block.annotations ? { annotations: block.annotations } : {}) };
  }
  if (type === 'resource_link') {
    const label = typeof block.title === 'string' ? block.title : String(block.name ?? block.uri);
    const parts = [`Resource link: ${label} <${String(block.uri)}>`];
    if (typeof block.mimeType === 'string') parts[0] += ` (${block.mimeType})`;
    if (typeof block.description === 'string') parts.push(block.description);
    return { type: 'text', text: parts.join('\n'), ...(block.annotations ? { annotations: block.annotations } : {}) };
  }
  return { type: 'text', text: `[${type} content is not defined in MCP ${rev}]` };
}

/** A non-object outputSchema cannot be declared to an object-only revision (docs/protocol.md
 *  "Non-object structuredContent to 2025-06-18..2025-11-25"): the tool is
 *  listed without it, and its calls carry the value as text instead (see spellStructured). */
function spellOutputSchema(tool: JsonObject, rev: Revision): void {
  if (!('outputSchema' in tool) || inSpan(rev, STRUCTURED_ANY_VALUE)) return;
  const s = tool.outputSchema;
  if (!isObject(s) || s.type !== 'object') delete tool.outputSchema;
}

/** Non-object structuredContent to 2025-06-18..2025-11-25 (object-only): removed, and its JSON is
 *  appended as a text block unless a text block already carries exactly that JSON. */
function spellStructured(result: JsonObject, rev: Revision): void {
  if (!('structuredContent' in result) || inSpan(rev, STRUCTURED_ANY_VALUE)) return;
  const sc = result.structuredContent;
  if (isObject(sc)) return;
  delete result.structuredContent;
  const json = JSON.stringify(sc);
  const content = Array.isArray(result.content) ? result.content : [];
  const has = content.some(
    (b) => isObject(b) && b.type === 'text' && typeof b.text === 'string' && b.text.trim() === json,
  );
  result.content = has ? content : [...content, { type: 'text', text: json }];
}

/** A copy of the result of `method` spelled for `rev`: without every field `rev` does not define (for
 *  legacy: resultType, serverInfo-in-_meta, ttlMs, cacheScope; for 2026-07-28: fields it removed, such
 *  as Tool.execution, which moved to the tasks extension). */
export function downgradeResult(method: string, result: JsonObject, rev: Revision): JsonObject {
  const out = spell(RESULT_SHAPE[method] ?? 'Result', result, rev);
  if (method === 'tools/call') spellStructured(out, rev);
  return out;
}

/** Server capabilities spelled for `rev` (extensions only to 2026-07-28, core tasks only to 2025-11-25,
 *  completions from 2025-03-26). */
export function downgradeCapabilities(caps: JsonObject, rev: Revision): JsonObject {
  return spell('ServerCapabilities', caps, rev);
}

/** Client capabilities spelled for the revision of the server they are declared to (mcpx as a client). */
export function downgradeClientCapabilities(caps: JsonObject, rev: Revision): JsonObject {
  return spell('ClientCapabilities', caps, rev);
}

export function downgradeImplementation(impl: JsonObject, rev: Revision): JsonObject {
  return spell('Implementation', impl, rev);
}

/** Notification params spelled for `rev`. The progress `message` of 2025-03-26+ is policy-governed for
 *  2024-11-05 (docs/protocol.md "Progress `message` to 2024-11-05"): `stripProgressMessage` says whether the policy removes it. */
export function downgradeNotification(
  method: string,
  params: JsonObject | undefined,
  rev: Revision,
  opts: { stripProgressMessage?: boolean } = {},
): JsonObject | undefined {
  if (params === undefined) return undefined;
  const out: JsonObject = { ...params };
  if ('_meta' in out) {
    const m = stripMeta(out._meta, rev);
    if (m) out._meta = m;
    else delete out._meta;
  }
  if (method === 'notifications/progress' && opts.stripProgressMessage && !hasField('ProgressParams', 'message', rev)) {
    delete out.message;
  }
  return out;
}
