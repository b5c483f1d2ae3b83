// A request's codec, chosen once from its revision (and the revision itself, where the request states it).
import { CODES, ProtocolError } from '../errors';
import { type JsonObject, isObject } from '../jsonrpc';
import { META } from '../meta';
import { type Era, LATEST_LEGACY, NEWEST_FIRST, type Revision, eraOf, isRevision } from '../revisions';
import type { EraCodec } from './codec';
import { LEGACY } from './legacy';
import { MODERN_CODEC } from './modern';

export type { EraCodec, Strategy, TaskView } from './codec';

const BY_ERA: Readonly<Record<Era, EraCodec>> = { legacy: LEGACY, modern: MODERN_CODEC };

export const codecFor = (rev: Revision): EraCodec => BY_ERA[eraOf(rev)];
export const codecOfEra = (era: Era): EraCodec => BY_ERA[era];

/** The revision a request is read in: the one its `_meta` names, where its era states the revision per
 *  request (2026-07-28); else the transport's. An unknown per-request version is -32022 (2026-07-28
 *  versioning); a legacy one in `_meta` is nobody's statement and the transport's stands. */
export function revisionOf(meta: JsonObject | undefined, fallback: Revision): Revision {
  const pv = meta?.[META.protocolVersion];
  if (pv === undefined) return fallback;
  if (isRevision(pv)) return statedPerRequest(pv) ? pv : fallback;
  throw new ProtocolError(CODES.UnsupportedProtocolVersion, `Unsupported protocol version: ${String(pv)}`, {
    requested: String(pv),
    supported: NEWEST_FIRST,
  });
}

/** The revision initialize settles on: the one asked for where initialize negotiates it, else the newest
 *  such — a counter-offer, never -32022, which a legacy client cannot read (docs/protocol.md "Legacy
 *  initialize with an unsupported version"). */
export function initializeRevision(requested: string): Revision {
  return negotiatedAtInitialize(requested) ? requested : LATEST_LEGACY;
}

/** Whether `v` is a revision a peer states per request (2026-07-28): a request naming one in its header is
 *  read in that era. */
export const statedPerRequest = (v: unknown): boolean => isRevision(v) && codecFor(v).handshake === 'discover';

/** Whether `v` is a revision negotiated at initialize (2024-11-05..2025-11-25). */
export const negotiatedAtInitialize = (v: unknown): v is Revision =>
  isRevision(v) && codecFor(v).handshake === 'initialize';

/** Whether a GET stating revision `v` (or none) may open a push stream: a legacy session's. */
export const pushStreamFor = (v: string | undefined): boolean => !isRevision(v) || codecFor(v).http.pushStream;

/** Whether an upstream of `era` reads a client's extensions once per connection (an instance per set). */
export const extensionsPerConnection = (era: Era): boolean => codecOfEra(era).extensions === 'per-connection';

/** Whether mcpx follows an upstream's changes on a listen stream it opens (2026-07-28 subscriptions/listen),
 *  not by resources/subscribe and pushed notifications. */
export const followsByListen = (codec: EraCodec): boolean => codec.client.subscriptions === 'listen';

/** The newest revision of `era`: what a person is shown as a task's revision (the editor's Tasks view). */
export const newestOf = (era: Era): Revision => codecOfEra(era).newest;

/** The codec of the revision a request's `_meta` names, if it names one mcpx knows (the stdio shim reads a
 *  client's requests before any gateway does). */
export const codecOfRequest = (params: unknown): EraCodec | undefined => {
  const v = isObject(params) && isObject(params._meta) ? params._meta[META.protocolVersion] : undefined;
  return isRevision(v) ? codecFor(v) : undefined;
};

/** Whether a stdio client's request goes alone through the shim, with its headers, rather than in the
 *  shim's session: its `_meta` names a revision whose era says so (a legacy or unknown one travels in the
 *  session). */
export const travelsAlone = (params: unknown): boolean => codecOfRequest(params)?.shimTravel === 'alone';

/** The eras as mcpx probes an upstream it knows nothing of: newest first (2026-07-28 versioning,
 *  "Backward Compatibility": server/discover, then initialize). */
export const PROBE_ORDER: readonly EraCodec[] = [MODERN_CODEC, LEGACY];

/** An era's name as read from outside (the era cache's file): one mcpx has a codec for. */
export const isEra = (v: unknown): v is Era => typeof v === 'string' && Object.hasOwn(BY_ERA, v);
