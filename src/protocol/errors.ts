// JSON-RPC error codes, which revisions may receive each, and the HTTP status each gets per era.
import { type Era, MODERN, type Revision, type Span, eraOf, inSpan } from './revisions';

export const CODES = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ResourceNotFoundLegacy: -32002,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
  UrlElicitationRequired: -32042,
} as const;

interface CodeRow {
  readonly name: string;
  readonly span: Span;
  /** HTTP status of a response carrying this error, per era of the request it answers. */
  readonly http: Readonly<Record<Era, number>>;
}

// Legacy Streamable HTTP (2025-03-26..2025-11-25): a message the server cannot accept is an HTTP error
// (400); any other JSON-RPC error is an ordinary response to an accepted request (200).
// 2026-07-28: the status is a function of the code (streamable-http "Request Metadata",
// "Server Validation"; basic/index "Error Codes").
export const CODE_TABLE: Readonly<Record<number, CodeRow>> = {
  [CODES.ParseError]: { name: 'Parse error', span: { since: '2024-11-05' }, http: { legacy: 400, modern: 400 } },
  [CODES.InvalidRequest]: {
    name: 'Invalid request',
    span: { since: '2024-11-05' },
    http: { legacy: 400, modern: 400 },
  },
  [CODES.MethodNotFound]: {
    name: 'Method not found',
    span: { since: '2024-11-05' },
    http: { legacy: 200, modern: 404 },
  },
  [CODES.InvalidParams]: { name: 'Invalid params', span: { since: '2024-11-05' }, http: { legacy: 200, modern: 400 } },
  [CODES.InternalError]: { name: 'Internal error', span: { since: '2024-11-05' }, http: { legacy: 200, modern: 500 } },
  [CODES.ResourceNotFoundLegacy]: {
    name: 'Resource not found',
    span: { since: '2024-11-05', removedIn: '2026-07-28' }, // 2026-07-28 basic/index: MUST NOT emit
    http: { legacy: 200, modern: 400 },
  },
  [CODES.HeaderMismatch]: {
    name: 'Header mismatch',
    span: { since: '2026-07-28' },
    http: { legacy: 400, modern: 400 },
  },
  [CODES.MissingRequiredClientCapability]: {
    name: 'Missing required client capability',
    span: { since: '2026-07-28' },
    http: { legacy: 400, modern: 400 },
  },
  [CODES.UnsupportedProtocolVersion]: {
    name: 'Unsupported protocol version',
    span: { since: '2026-07-28' },
    http: { legacy: 400, modern: 400 },
  },
  [CODES.UrlElicitationRequired]: {
    name: 'URL elicitation required',
    span: { since: '2025-11-25', removedIn: '2026-07-28' },
    http: { legacy: 200, modern: 400 },
  },
};

/** May a server send this code to a peer of revision `rev`? */
export function mayEmit(code: number, rev: Revision): boolean {
  const row = CODE_TABLE[code];
  return row !== undefined && inSpan(rev, row.span);
}

export function httpStatus(code: number, rev: Revision): number {
  return CODE_TABLE[code]?.http[eraOf(rev)] ?? 500;
}

export interface WireError {
  code: number;
  message: string;
  data?: unknown;
}

/** An error meant for the wire: carries the JSON-RPC code chosen for the peer's era. */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'ProtocolError';
  }
  toWire(): WireError {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** mcpx's own refusals and failures, named by a string code, and the wire code each reaches a peer as
 *  (applied at the edge, toWireError): one code, or the first of several the peer's revision may receive.
 *  The message names the setting a bound comes from (docs/security.md "Bounds"). */
export const LOCAL_CODES = {
  /** A bound on what mcpx holds was reached: requests in flight, background calls, tasks, questions. */
  'bound.inflight': CODES.InternalError,
  'bound.background': CODES.InternalError,
  'bound.tasks': CODES.InternalError,
  'bound.questions': CODES.InternalError,
  /** A call asked more questions, or more rounds, than proto.askRounds. */
  'bound.rounds': CODES.InternalError,
  /** The request was cancelled (the client closed its stream, or the call was abandoned). */
  cancelled: CODES.InternalError,
  /** A permission rule, or the person asked, refused a resources/read or prompts/get: -32602 in every
   *  revision (a tools/call is refused with an isError result instead; docs/protocol.md "Permissions"). */
  'permissions.denied': CODES.InvalidParams,
  /** A prompts/get of a prompt held by its pin (its definition changed since it was pinned): -32602 (a
   *  tools/call is refused with an isError result instead; docs/protocol.md "Pins"). */
  'pins.held': CODES.InvalidParams,
  /** A guardrail blocked what a prompts/get or resources/read would have returned (a tools/call's result
   *  becomes an isError result naming the detector and the rule instead; docs/gateway.md "Guardrails"):
   *  -32602, as every refusal of mcpx's. */
  'guardrails.blocked': CODES.InvalidParams,
  /** A tool's arguments do not match its input schema: -32602, or — a tools/call from 2025-11-25 on — an
   *  isError result the edge makes of it (server/handlers.ts; 2025-11-25 server/tools "Error Handling"). */
  'arguments.invalid': CODES.InvalidParams,
  /** A skill's file whose content is not what its server's listing promised (its size, its SHA-256, a
   *  SKILL.md's frontmatter: SEP-2640 "Integrity and verification"): the upstream's failure, -32603, the
   *  message naming the skill (docs/gateway.md "Skills"). */
  'skills.unverified': CODES.InternalError,
  /** A resource that is not there: -32002 to legacy, -32602 to 2026-07-28 (basic/index "Error Codes"),
   *  with data.uri (docs/protocol.md "Resource not found"). */
  'resource.notFound': [CODES.ResourceNotFoundLegacy, CODES.InvalidParams],
} as const satisfies Record<string, number | readonly number[]>;
export type LocalCode = keyof typeof LOCAL_CODES;

/** An error of mcpx's own, beside the wire's ProtocolError: a string code, mapped to the wire at the edge. */
export class McpxError extends Error {
  constructor(
    readonly code: LocalCode,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'McpxError';
  }
  /** Its wire form for a peer of `rev` (the HTTP API's callers read the newest). */
  toWire(rev: Revision = MODERN): WireError {
    const codes: number | readonly number[] = LOCAL_CODES[this.code];
    const code = typeof codes === 'number' ? codes : (codes.find((c) => mayEmit(c, rev)) ?? CODES.InternalError);
    return this.data === undefined ? { code, message: this.message } : { code, message: this.message, data: this.data };
  }
}

/** A tool's arguments that do not match its input schema (the chain's validated step, a gateway tool's own
 *  check): spelled per revision at the edge. */
export const invalidArguments = (message: string) => new McpxError('arguments.invalid', message);

/** An error whose message is meant for the peer as it is (either kind of typed error). */
export const isTypedError = (e: unknown): e is ProtocolError | McpxError =>
  e instanceof ProtocolError || e instanceof McpxError;

export const invalidParams = (message: string, data?: unknown) => new ProtocolError(CODES.InvalidParams, message, data);
export const invalidRequest = (message: string) => new ProtocolError(CODES.InvalidRequest, message);
export const methodNotFound = (method: string) =>
  new ProtocolError(CODES.MethodNotFound, `Method not found: ${method}`);

/** Resource not found, with data.uri: its code is the peer's era's (LOCAL_CODES; docs/protocol.md "Resource
 *  not found"). */
export function resourceNotFound(uri: string, why = 'Resource not found'): McpxError {
  return new McpxError('resource.notFound', `${why}: ${uri}`, { uri });
}

/** The wire form of any thrown value, for revision `rev`: a code the revision may not receive
 *  becomes -32603, so nothing outside the table ever reaches a peer. */
export function toWireError(err: unknown, rev: Revision): WireError {
  if (isTypedError(err)) {
    const wire = err.toWire(rev);
    return mayEmit(wire.code, rev) ? wire : { code: CODES.InternalError, message: err.message };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: CODES.InternalError, message: `Internal error: ${message}` };
}
