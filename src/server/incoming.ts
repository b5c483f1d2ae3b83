// One request as a server adapter hands it to the server, and what comes back.
import type { Notification, Request, Response } from '../protocol/jsonrpc';
import type { Revision } from '../protocol/revisions';
import type { Abort } from '../wire/abort';
import type { Conn } from './conn';

export interface Incoming {
  conn: Conn;
  req: Request;
  /** The revision the transport settled on: a header, the session's, or its era default. */
  rev: Revision;
  /** The request's abort (a cancellation, a closed connection); its AbortSignal is built only if used. */
  abort: Abort;
  /** Sends a notification related to this request (progress, log) on its channel. */
  emit(n: Notification): void;
  /** Sends a request to the client on this request's channel, where there is one (legacy stdio, a
   *  legacy HTTP session whose client accepts SSE). */
  send?(req: Request): void;
  /** 2026-07-28 HTTP: the request's Mcp-Param-* headers (lower-case names without the prefix, raw values). */
  paramHeaders?: Record<string, string>;
}

export interface Outcome {
  /** Absent when the client cancelled the request: nothing is sent for it. */
  response: Response | undefined;
  /** The response's JSON text, serialized once by the runner for its size check; writers send it. */
  text?: string;
  /** The revision the response was spelled for (picks the HTTP status). */
  rev: Revision;
  /** Set when a legacy initialize succeeded (HTTP mints a session on it). */
  initialized?: boolean;
}
