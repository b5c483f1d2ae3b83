// The revisions mcpx serves, as data. Every question "does revision R have X?" is answered here,
// by the index of R in REVISIONS; nothing else in the project compares revision dates.

export const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;
export type Revision = (typeof REVISIONS)[number];
export type Era = 'legacy' | 'modern';
/** Supported versions, newest first (server/discover, -32022's data.supported). */
export const NEWEST_FIRST: readonly Revision[] = [...REVISIONS].reverse();

/** The one modern revision: per-request `_meta`, server/discover, no sessions. */
export const MODERN: Revision = '2026-07-28';
/** Newest revision negotiated by initialize; the counter-offer to an unknown or modern version. */
export const LATEST_LEGACY: Revision = '2025-11-25';
/** What a stdio client that declared nothing is spelled for (docs/protocol.md "A client that states no revision"). */
export const OLDEST: Revision = '2024-11-05';
/** A headerless Streamable HTTP request or a stdio batch before initialize (docs/protocol.md "Missing MCP-Protocol-Version", "Batches"). */
export const HEADERLESS: Revision = '2025-03-26';

export function isRevision(v: unknown): v is Revision {
  return typeof v === 'string' && (REVISIONS as readonly string[]).includes(v);
}

/** The era of each revision. What differs between the eras is protocol/eras/'s codecs: code asks a
 *  request's codec (eras/index.ts `codecFor`), never compares eras. */
const ERA_OF: Readonly<Record<Revision, Era>> = {
  '2024-11-05': 'legacy',
  '2025-03-26': 'legacy',
  '2025-06-18': 'legacy',
  '2025-11-25': 'legacy',
  '2026-07-28': 'modern',
};
export const eraOf = (rev: Revision): Era => ERA_OF[rev];

const index = (rev: Revision): number => REVISIONS.indexOf(rev);

/** A feature exists from `since` until (not including) `removedIn`. */
export interface Span {
  readonly since: Revision;
  readonly removedIn?: Revision;
}

export function inSpan(rev: Revision, span: Span): boolean {
  return index(rev) >= index(span.since) && (span.removedIn === undefined || index(rev) < index(span.removedIn));
}

const all: Span = { since: '2024-11-05' };
const from = (since: Revision, removedIn?: Revision): Span => (removedIn ? { since, removedIn } : { since });

/** Optional fields of the shapes mcpx sends, with the revisions that define them. A field not named
 *  here exists in every revision that has its shape. Checked against each revision's schema.json. */
export const FIELDS: Readonly<Record<string, Readonly<Record<string, Span>>>> = {
  Tool: {
    title: from('2025-06-18'),
    outputSchema: from('2025-06-18'),
    annotations: from('2025-03-26'),
    execution: from('2025-11-25', '2026-07-28'), // 2026-07-28 moved it to the tasks extension
    icons: from('2025-11-25'),
    _meta: from('2025-06-18'),
  },
  Resource: { title: from('2025-06-18'), icons: from('2025-11-25'), _meta: from('2025-06-18') },
  ResourceTemplate: { title: from('2025-06-18'), icons: from('2025-11-25'), _meta: from('2025-06-18') },
  Prompt: { title: from('2025-06-18'), icons: from('2025-11-25'), _meta: from('2025-06-18') },
  PromptArgument: { title: from('2025-06-18') },
  Implementation: {
    title: from('2025-06-18'),
    icons: from('2025-11-25'),
    description: from('2025-11-25'),
    websiteUrl: from('2025-11-25'),
  },
  Annotations: { lastModified: from('2025-06-18') },
  Content: { _meta: from('2025-06-18') },
  ResourceContents: { _meta: from('2025-06-18') },
  ServerCapabilities: {
    completions: from('2025-03-26'),
    tasks: from('2025-11-25', '2026-07-28'), // core tasks; 2026-07-28 has the extension instead
    extensions: from('2026-07-28'),
  },
  ClientCapabilities: {
    elicitation: from('2025-06-18'),
    tasks: from('2025-11-25', '2026-07-28'),
    extensions: from('2026-07-28'),
  },
  RootsCapability: { listChanged: from('2024-11-05', '2026-07-28') }, // 2026-07-28 removed roots/list_changed
  ElicitationCapability: { form: from('2025-11-25'), url: from('2025-11-25') },
  SamplingCapability: { context: from('2025-11-25'), tools: from('2025-11-25') },
  ElicitParams: { mode: from('2025-11-25'), elicitationId: from('2025-11-25', '2026-07-28') },
  SamplingParams: { tools: from('2025-11-25'), toolChoice: from('2025-11-25') },
  Result: {
    resultType: from('2026-07-28'),
    ttlMs: from('2026-07-28'),
    cacheScope: from('2026-07-28'),
  },
  CallToolResult: { structuredContent: from('2025-06-18') },
  ProgressParams: { message: from('2025-03-26') },
};

/** Extensions whose own specification has them declared in a legacy `initialize` result as well (SEP-2640
 *  "Capability Declaration": `capabilities.extensions` of the initialize response): kept in a legacy
 *  ServerCapabilities, which otherwise has no `extensions`, for a client that declared the extension in
 *  its own initialize (docs/protocol.md "Skills"). */
export const LEGACY_DECLARED_EXTENSIONS: Readonly<Record<string, Span>> = {
  'io.modelcontextprotocol/skills': all,
};

/** Reserved `_meta` keys that only a revision's own envelope may carry. Not `subscriptionId`: it belongs
 *  to subscriptions/listen, which mcpx serves to clients of every revision (docs/protocol.md "Accept liberally"), and a legacy client
 *  with two streams on one stdio pipe needs it as much as a modern one (every revision's _meta is open). */
export const META_KEYS: Readonly<Record<string, Span>> = {
  'io.modelcontextprotocol/serverInfo': from('2026-07-28'),
};

/** mcpx's own keys a client's request may carry in `_meta`, in every revision (each revision's request
 *  `_meta` is open): read by mcpx and never forwarded upstream (docs/protocol.md "mcpx's own request keys"). */
export const OWN_REQUEST_META: Readonly<Record<string, { span: Span; what: string }>> = {
  'dev.mcpx/session': { span: all, what: 'the identity the request names (docs/protocol.md "Client identity")' },
  'dev.mcpx/timeoutMs': {
    span: all,
    what: 'a shorter timeout for the upstream requests made for this request, in ms (docs/gateway.md "Timeouts, in order of precedence")',
  },
};

/** Content block types and the revision that introduced each. */
export const CONTENT_TYPES: Readonly<Record<string, Span>> = {
  text: all,
  image: all,
  resource: all,
  audio: from('2025-03-26'),
  resource_link: from('2025-06-18'),
};

/** Revisions that accept a JSON-RPC batch (2025-03-26 basic/index "Batching"; removed 2025-06-18). */
export const BATCHES: Span = from('2025-03-26', '2025-06-18');

/** structuredContent must be an object from 2025-06-18 to 2025-11-25; any JSON value in 2026-07-28. */
export const STRUCTURED_ANY_VALUE: Span = from('2026-07-28');

/** Tool input validation errors are an isError result from 2025-11-25 on, a protocol error (-32602)
 *  before (2025-11-25 server/tools "Error Handling"). */
export const INPUT_ERROR_AS_RESULT: Span = from('2025-11-25');

/** notifications/tasks/status exists in 2025-11-25 only (the extension has notifications/tasks on a
 *  listen stream instead): a task of an older legacy client changes silently (docs/protocol.md "Tasks"). */
export const TASK_STATUS_NOTIFICATION: Span = from('2025-11-25', '2026-07-28');

/** Sampling message content may be an array of blocks from 2025-11-25; before, one block. */
export const SAMPLING_MULTI_CONTENT: Span = from('2025-11-25');

/** The MCP-Protocol-Version header exists from 2025-06-18 (2025-06-18 transports). */
export const VERSION_HEADER: Span = from('2025-06-18');

/** A Streamable HTTP response stream that broke may be resumed with Last-Event-ID (2025-03-26
 *  basic/transports "Resumability and Redelivery"); 2026-07-28 has no resumption (2026-07-28
 *  basic/transports/streamable-http "Receiving Messages"). */
export const STREAM_RESUMPTION: Span = from('2025-03-26', '2026-07-28');

/** Streamable HTTP sessions (Mcp-Session-Id; a 404 means the session ended) exist from 2025-03-26;
 *  2026-07-28 has none (2025-03-26 basic/transports "Session Management"; 2026-07-28
 *  basic/transports/streamable-http "Backward Compatibility"). */
export const SESSIONS: Span = from('2025-03-26', '2026-07-28');

export function hasField(shape: string, field: string, rev: Revision): boolean {
  const span = FIELDS[shape]?.[field];
  return span === undefined || inSpan(rev, span);
}

/** The revision table as plain JSON, for GET /v1/protocol and docs/protocol.md (the methods are
 *  methods.ts's `methodTable()`). */
export function revisionTable() {
  return {
    revisions: REVISIONS.map((rev) => ({ revision: rev, era: eraOf(rev) })),
    fields: FIELDS,
    metaKeys: META_KEYS,
    ownRequestMeta: OWN_REQUEST_META,
    contentTypes: CONTENT_TYPES,
    batches: BATCHES,
  };
}
