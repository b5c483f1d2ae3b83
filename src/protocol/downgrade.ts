// The one edge: results and notifications are built in the 2026-07-28 shape and spelled down here for
// the revision they go to. Never an edit: a stored result may be handed out again, and a value read from
// an upstream may be passed on as the bytes it arrived as (wire/raw.ts). What needs a change is copied;
// what needs none is returned as it is, so an unchanged upstream result keeps its bytes.
import { type JsonObject, isObject } from './jsonrpc';
import {
  type Revision,
  CONTENT_TYPES,
  LEGACY_DECLARED_EXTENSIONS,
  META_KEYS,
  STRUCTURED_ANY_VALUE,
  hasField,
  inSpan,
} from './revisions';

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

/** `meta` without the keys `rev` does not define: itself when it keeps every key, undefined when none. */
function stripMeta(meta: unknown, rev: Revision): JsonObject | undefined {
  if (!isObject(meta)) return undefined;
  const out: JsonObject = {};
  let kept = 0;
  let all = 0;
  for (const [k, v] of Object.entries(meta)) {
    all++;
    if (!META_KEYS[k] || inSpan(rev, META_KEYS[k])) {
      out[k] = v;
      kept++;
    }
  }
  return kept === 0 ? undefined : kept === all ? meta : out;
}

/** The extensions a revision without `extensions` is declared anyway, their own specification saying so
 *  (the revision table's LEGACY_DECLARED_EXTENSIONS); undefined where none is. `declared`: only those the
 *  client declared itself (its initialize capabilities' `extensions`), where given. */
function legacyDeclared(extensions: unknown, rev: Revision, declared?: JsonObject): JsonObject | undefined {
  if (!isObject(extensions)) return undefined;
  const kept = Object.entries(extensions).filter(([id]) => {
    const span = Object.hasOwn(LEGACY_DECLARED_EXTENSIONS, id) ? LEGACY_DECLARED_EXTENSIONS[id] : undefined;
    return span !== undefined && inSpan(rev, span) && (!declared || isObject(declared[id]));
  });
  return kept.length ? Object.fromEntries(kept) : undefined;
}

/** `items` spelled one by one: the same array when no item changed. */
function spellAll(shape: string, items: unknown[], rev: Revision): unknown[] {
  let out: unknown[] | undefined;
  items.forEach((x, i) => {
    const y = isObject(x) ? spell(shape, x, rev) : x;
    if (y !== x) out ??= items.slice();
    if (out) out[i] = y;
  });
  return out ?? items;
}

/** `obj` without the fields `rev` does not define for `shape`, walking its nested shapes: `obj` itself
 *  when it holds nothing to remove or rewrite, else a copy. */
function spell(shape: string, obj: JsonObject, rev: Revision): JsonObject {
  const src = shape === 'Content' ? rewriteContent(obj, rev) : obj;
  const out: JsonObject = {};
  let same = src === obj;
  for (const k of Object.keys(src)) {
    if (!hasField(shape, k, rev) || (shape.endsWith('Result') && !hasField('Result', k, rev))) {
      same = false;
      const kept = shape === 'ServerCapabilities' && k === 'extensions' ? legacyDeclared(src[k], rev) : undefined;
      if (kept) out[k] = kept;
      continue;
    }
    const child = TREE[shape]?.[k];
    // A member with nothing to spell is not read: a long string an upstream sent may still be undecoded
    // (an accessor, wire/lazy.ts), and a copy takes it as it is.
    const d = Object.getOwnPropertyDescriptor(src, k)!;
    if (d.get && !child && k !== '_meta') {
      Object.defineProperty(out, k, d);
      continue;
    }
    const v = d.get ? src[k] : d.value;
    let w: unknown = v;
    if (k === '_meta') w = stripMeta(v, rev);
    else if (child?.endsWith('[]') && Array.isArray(v)) w = spellAll(child.slice(0, -2), v, rev);
    else if (child && isObject(v)) w = spell(child, v, rev);
    if (w !== v) same = false;
    if (w !== undefined || k !== '_meta') out[k] = w;
  }
  if (shape === 'Tool' && dropsOutputSchema(out, rev)) {
    delete out.outputSchema;
    same = false;
  }
  return same ? obj : out;
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
function dropsOutputSchema(tool: JsonObject, rev: Revision): boolean {
  if (!('outputSchema' in tool) || inSpan(rev, STRUCTURED_ANY_VALUE)) return false;
  const s = tool.outputSchema;
  return !isObject(s) || s.type !== 'object';
}

/** Non-object structuredContent to 2025-06-18..2025-11-25 (object-only): a copy without it, its JSON
 *  appended as a text block unless a text block already carries exactly that JSON. */
function spellStructured(result: JsonObject, rev: Revision): JsonObject {
  if (!('structuredContent' in result) || inSpan(rev, STRUCTURED_ANY_VALUE)) return result;
  const sc = result.structuredContent;
  if (isObject(sc)) return result;
  const { structuredContent: _, ...out } = result;
  const json = JSON.stringify(sc);
  const content = Array.isArray(result.content) ? result.content : [];
  const has = content.some(
    (b) => isObject(b) && b.type === 'text' && typeof b.text === 'string' && b.text.trim() === json,
  );
  out.content = has ? content : [...content, { type: 'text', text: json }];
  return out;
}

/** The result of `method` spelled for `rev`: without every field `rev` does not define (for legacy:
 *  resultType, serverInfo-in-_meta, ttlMs, cacheScope; for 2026-07-28: fields it removed, such as
 *  Tool.execution, which moved to the tasks extension); the result itself when it holds none. */
export function downgradeResult(method: string, result: JsonObject, rev: Revision): JsonObject {
  const out = spell(RESULT_SHAPE[method] ?? 'Result', result, rev);
  return method === 'tools/call' ? spellStructured(out, rev) : out;
}

/** Server capabilities spelled for `rev` (extensions only to 2026-07-28, core tasks only to 2025-11-25,
 *  completions from 2025-03-26) — but an extension whose own specification declares it in a legacy
 *  initialize (the revision table's LEGACY_DECLARED_EXTENSIONS) to a client that declared it there itself
 *  (`declared`: its initialize capabilities), which knows the field. */
export function downgradeCapabilities(caps: JsonObject, rev: Revision, declared?: JsonObject): JsonObject {
  const out = spell('ServerCapabilities', caps, rev);
  if (hasField('ServerCapabilities', 'extensions', rev) || !('extensions' in out)) return out;
  const { extensions, ...rest } = out;
  const kept = legacyDeclared(extensions, rev, isObject(declared?.extensions) ? declared.extensions : {});
  return kept ? { ...rest, extensions: kept } : rest;
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
