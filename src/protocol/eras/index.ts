// A request's codec, chosen once from its revision (and the revision itself, where the request states it).
import { CODES, ProtocolError } from '../errors';
import type { JsonObject } from '../jsonrpc';
import { META } from '../meta';
import { type Era, LATEST_LEGACY, NEWEST_FIRST, type Revision, eraOf, isRevision } from '../revisions';
import type { EraCodec } from './codec';
import { LEGACY } from './legacy';
import { MODERN_CODEC } from './modern';

export type { EraCodec } from './codec';

const BY_ERA: Readonly<Record<Era, EraCodec>> = { legacy: LEGACY, modern: MODERN_CODEC };

export const codecFor = (rev: Revision): EraCodec => BY_ERA[eraOf(rev)];
export const codecOfEra = (era: Era): EraCodec => BY_ERA[era];

/** The revision a request is read in: the one its `_meta` names, where its era states the revision per
 *  request (2026-07-28); else the transport's. An unknown per-request version is -32022 (2026-07-28
 *  versioning); a legacy one in `_meta` is nobody's statement and the transport's stands. */
export function revisionOf(meta: JsonObject | undefined, fallback: Revision): Revision {
  const pv = meta?.[META.protocolVersion];
  if (pv === undefined) return fallback;
  if (isRevision(pv)) return codecFor(pv).handshake === 'discover' ? pv : fallback;
  throw new ProtocolError(CODES.UnsupportedProtocolVersion, `Unsupported protocol version: ${String(pv)}`, {
    requested: String(pv),
    supported: NEWEST_FIRST,
  });
}

/** The revision initialize settles on: the one asked for where initialize negotiates it, else the newest
 *  such — a counter-offer, never -32022, which a legacy client cannot read (docs/protocol.md "Legacy
 *  initialize with an unsupported version"). */
export function initializeRevision(requested: string): Revision {
  return isRevision(requested) && codecFor(requested).handshake === 'initialize' ? requested : LATEST_LEGACY;
}

/** The eras as mcpx probes an upstream it knows nothing of: newest first (2026-07-28 versioning,
 *  "Backward Compatibility": server/discover, then initialize). */
export const PROBE_ORDER: readonly EraCodec[] = [MODERN_CODEC, LEGACY];

/** An era's name as read from outside (the era cache's file): one mcpx has a codec for. */
export const isEra = (v: unknown): v is Era => typeof v === 'string' && Object.hasOwn(BY_ERA, v);
