// Connecting to an upstream: modern first (server/discover), then initialize, then — for a URL — the
// 2024-11-05 HTTP+SSE transport, per the 2026-07-28 versioning and transport pages. The answer is
// cached per configuration; a cached answer that turns out wrong is re-probed once.
import type { Policy } from '../config/policy';
import type { ServerDef } from '../config/servers';
import { downgradeClientCapabilities } from '../protocol/downgrade';
import { CODES, ProtocolError } from '../protocol/errors';
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { META } from '../protocol/meta';
import { type EraCodec, PROBE_ORDER, codecFor, codecOfEra, negotiatedAtInitialize } from '../protocol/eras';
import { LATEST_LEGACY, MODERN, type Revision, VERSION_HEADER, inSpan } from '../protocol/revisions';
import type { Authorizer } from './auth/authorizer';
import { SignInRequired } from './auth/errors';
import { type ClientHooks, UpstreamClient, UpstreamError } from './client';
import type { EraCache, EraRecord } from './eras';
import { HttpUpstream } from './http';
import { encodeHeaderValue } from '../wire/headers';
import { type SandboxContext, openTransport } from './transports';
import { HttpStatusError, TransportClosed, type UpstreamBounds, type UpstreamTransport } from './transport';

export interface ConnectOptions {
  def: ServerDef;
  hooks: ClientHooks;
  eras: EraCache;
  policy: Policy;
  clientInfo: JsonObject;
  /** What mcpx declares: at initialize to legacy, per request to 2026-07-28 (docs/protocol.md "What mcpx declares upstream"). */
  capabilities: JsonObject;
  /** How long the handshake may take. */
  timeoutMs: number;
  /** How long server/discover may go unanswered before the server is taken as legacy. */
  probeTimeoutMs: number;
  /** transport.maxLineBytes: the longest line read from a stdio upstream (its default when absent). */
  maxLineBytes?: number;
  /** transport.maxBodyBytes: the largest JSON body read from an HTTP upstream (its default when absent). */
  maxBodyBytes?: number;
  /** limits.paramsDepth: the deepest nesting of a message read from an upstream (its default when absent). */
  maxDepth?: number;
  /** upstream.env: names of the gateway's environment a stdio upstream gets besides the safe list. */
  envNames?: readonly string[];
  /** The server's sign-in (HTTP servers): a sign-in the handshake needs is asked for here, once. */
  auth?: Authorizer;
  /** upstream.sandbox and the workspace roots: a stdio server's sandbox (docs/security.md). */
  sandbox?: SandboxContext;
}

const boundsOf = (o: ConnectOptions): Partial<UpstreamBounds> => ({
  maxLineBytes: o.maxLineBytes,
  maxBodyBytes: o.maxBodyBytes,
  maxDepth: o.maxDepth,
});

/** Errors only a 2026-07-28 server sends: the server is modern, do not fall back (versioning page). */
const MODERN_CODES = new Set<number>([
  CODES.HeaderMismatch,
  CODES.MissingRequiredClientCapability,
  CODES.UnsupportedProtocolVersion,
]);

/** The probe uses ids 0 (discover) and 1 (initialize); the client continues after them, so no id is
 *  reused within a legacy session. */
const PROBE_IDS = 2;

type Attempt = { kind: 'ok'; client: UpstreamClient } | { kind: 'not-this-era'; why: string; status?: number };

/** Statuses of a refused Streamable HTTP initialize that send the client on to HTTP+SSE (2025-11-25 and
 *  2026-07-28 transports; 401/403 no longer do — docs/protocol.md "Era detection and the HTTP+SSE fallback"). */
/** A signal that aborts after `ms`, its reason naming the setting: an upstream that never answers the
 *  handshake is reported as "no answer within 500 ms (pool.startTimeout)", not as an aborted operation. */
function timeout(ms: number, setting: string): AbortSignal {
  const ctl = new AbortController();
  setTimeout(() => ctl.abort(new Error(`no answer within ${ms} ms (${setting})`)), ms).unref();
  return ctl.signal;
}

/** Connects; a handshake refused for want of a sign-in signs in (when somebody can) and is tried once
 *  more. Signing in is not bounded by the handshake's timeouts but by auth.signInTimeout: a person is
 *  reading a page. */
export async function connect(o: ConnectOptions): Promise<UpstreamClient> {
  try {
    return await connectOnce(o);
  } catch (e) {
    if (!(e instanceof SignInRequired) || !o.auth?.canSignIn()) throw e;
    await o.auth.signIn();
    return connectOnce(o);
  }
}

async function connectOnce(o: ConnectOptions): Promise<UpstreamClient> {
  const cached = o.eras.get(o.def);
  const via =
    o.def.type === 'stdio' ? 'stdio' : o.def.type === 'sse' ? 'sse' : cached?.transport === 'sse' ? 'sse' : 'http';
  // The cached era first, else newest first; then the others.
  const first = cached ? codecOfEra(cached.era) : PROBE_ORDER[0]!;
  const order = [first, ...PROBE_ORDER.filter((c) => c !== first)];
  const why: string[] = [];
  let transport: UpstreamTransport | undefined;
  try {
    return await probeEras(o, { order, via, cached, why, opened: (t) => (transport = t) });
  } catch (e) {
    await transport?.close();
    throw e;
  }
}

/** Each era in `order` over the transport `via` until one's handshake succeeds; `why` collects what each
 *  failed on, `opened` hears each transport opened (the caller closes the last). */
async function probeEras(
  o: ConnectOptions,
  p: {
    order: readonly EraCodec[];
    via: 'stdio' | 'http' | 'sse';
    cached: EraRecord | undefined;
    why: string[];
    opened: (t: UpstreamTransport | undefined) => void;
  },
): Promise<UpstreamClient> {
  const { order, via, cached, why, opened } = p;
  let transport: UpstreamTransport | undefined;
  for (const codec of order) {
    transport =
      transport && !transport.isClosed
        ? transport
        : await openTransport(o.def, via, { ...o, log: o.hooks.log, bounds: boundsOf(o) });
    opened(transport);
    // HTTP+SSE has no server/discover: a legacy transport, initialize only.
    const a = await (via === 'sse' ? tryLegacy : HANDSHAKES[codec.handshake])(o, transport);
    if (a.kind === 'ok') return remember(o, a.client, cached);
    why.push(a.why);
    if (via === 'http' && codec.client.sseFallback(a.status)) {
      // Streamable HTTP refused initialize with a status that is not a modern error: the deprecated
      // HTTP+SSE transport is the last resort (2026-07-28 streamable-http "Backward Compatibility").
      await transport.close();
      transport = undefined;
      opened(undefined);
      try {
        const sse = await openTransport(o.def, 'sse', { log: o.hooks.log, bounds: boundsOf(o), envNames: o.envNames });
        const b = await tryLegacy(o, sse);
        if (b.kind === 'ok') return remember(o, b.client, cached);
        why.push(b.why);
        await sse.close();
      } catch (e) {
        why.push(`HTTP+SSE: ${(e as Error).message}`);
      }
    }
  }
  await transport?.close();
  o.eras.forget(o.def);
  throw new ProtocolError(CODES.InternalError, `upstream ${o.def.name} could not be connected: ${why.join('; ')}`);
}

/** Each era's handshake: server/discover, or initialize (the codec's `handshake`). */
const HANDSHAKES: Record<EraCodec['handshake'], (o: ConnectOptions, t: UpstreamTransport) => Promise<Attempt>> = {
  discover: (o, t) => tryModern(o, t),
  initialize: (o, t) => tryLegacy(o, t),
};

/** What the era cache knows of an upstream told its revision rather than probed (the conformance suite
 *  names it): its era, transport and revision. */
export const toldEra = (revision: Revision, transport: EraRecord['transport']): EraRecord => ({
  era: codecFor(revision).era,
  transport,
  revision,
});

function remember(o: ConnectOptions, client: UpstreamClient, cached?: EraRecord): UpstreamClient {
  if (client.transport instanceof HttpUpstream) client.transport.connected = true;
  const r: EraRecord = { era: client.era, transport: client.transport.kind, revision: client.negotiated.revision };
  if (cached && cached.era !== r.era) o.hooks.log(`[${o.def.name}] cached era ${cached.era} was wrong; now ${r.era}`);
  o.eras.set(o.def, r);
  return client;
}

async function tryModern(o: ConnectOptions, t: UpstreamTransport, retried = false): Promise<Attempt> {
  const codec = codecFor(MODERN);
  const params = { _meta: codec.client.meta({ capabilities: o.capabilities, clientInfo: o.clientInfo }) };
  const headers = t.kind === 'http' ? codec.client.headers('server/discover', params, encodeHeaderValue) : undefined;
  try {
    const res = await t.request(
      { jsonrpc: '2.0', id: 0, method: 'server/discover', params },
      { signal: timeout(o.probeTimeoutMs, 'pool.probeTimeout'), headers },
    );
    if ('error' in res) {
      // -32022 lists what the server supports: a legacy revision mcpx speaks is worth an initialize.
      const supported =
        isObject(res.error.data) && Array.isArray(res.error.data.supported)
          ? (res.error.data.supported as unknown[])
          : [];
      if (res.error.code === CODES.UnsupportedProtocolVersion && supported.some(negotiatedAtInitialize)) {
        return { kind: 'not-this-era', why: `server/discover: it supports ${JSON.stringify(supported)}` };
      }
      // It lists 2026-07-28 after all: retry once with a version from its list (versioning page SHOULD).
      if (res.error.code === CODES.UnsupportedProtocolVersion && supported.includes(MODERN) && !retried)
        return tryModern(o, t, true);
      if (MODERN_CODES.has(res.error.code)) {
        throw new ProtocolError(
          CODES.InternalError,
          `upstream ${o.def.name} is a ${MODERN}-era server that refused server/discover: ${res.error.message}`,
        );
      }
      return { kind: 'not-this-era', why: `server/discover: ${res.error.code} ${res.error.message}` };
    }
    const r = res.result;
    const versions = Array.isArray(r.supportedVersions) ? (r.supportedVersions as unknown[]) : [];
    if (!versions.includes(MODERN))
      return { kind: 'not-this-era', why: `server/discover listed no ${MODERN} (${JSON.stringify(versions)})` };
    const meta = isObject(r._meta) ? r._meta : {};
    const negotiated = {
      era: codec.era,
      revision: MODERN,
      capabilities: isObject(r.capabilities) ? r.capabilities : {},
      serverInfo: isObject(meta[META.serverInfo])
        ? (meta[META.serverInfo] as JsonObject)
        : { name: o.def.name, version: '' },
      instructions: typeof r.instructions === 'string' ? r.instructions : undefined,
    };
    return {
      kind: 'ok',
      client: new UpstreamClient(o.def.name, t, negotiated, { ...o, codec, firstId: PROBE_IDS }),
    };
  } catch (e) {
    if (e instanceof ProtocolError) throw e;
    if (
      e instanceof HttpStatusError &&
      e.json &&
      isObject(e.json.error) &&
      MODERN_CODES.has(Number(e.json.error.code))
    ) {
      throw new ProtocolError(
        CODES.InternalError,
        `upstream ${o.def.name} refused server/discover: ${String(e.json.error.message)}`,
      );
    }
    // Any other error, or no answer in time: a legacy server (2026-07-28 stdio "Backward Compatibility").
    return { kind: 'not-this-era', why: `server/discover: ${(e as Error).message}` };
  }
}

async function tryLegacy(o: ConnectOptions, t: UpstreamTransport): Promise<Attempt> {
  const params = {
    protocolVersion: LATEST_LEGACY,
    capabilities: atInitialize(o.capabilities),
    clientInfo: o.clientInfo,
  };
  try {
    const res = await t.request(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params },
      { signal: timeout(o.timeoutMs, 'pool.startTimeout') },
    );
    if ('error' in res) return { kind: 'not-this-era', why: `initialize: ${res.error.code} ${res.error.message}` };
    const r = res.result;
    const v = r.protocolVersion;
    // initialize settles only a revision that initialize negotiates (legacy); anything else is not spoken.
    if (!negotiatedAtInitialize(v)) {
      await t.close();
      throw new ProtocolError(
        CODES.InternalError,
        `upstream ${o.def.name} answered initialize with ${JSON.stringify(v)}, a version mcpx does not speak`,
      );
    }
    if (t instanceof HttpUpstream && inSpan(v, VERSION_HEADER)) t.protocolVersion = v;
    const codec = codecFor(v);
    const negotiated = {
      era: codec.era,
      revision: v,
      capabilities: isObject(r.capabilities) ? r.capabilities : {},
      serverInfo: isObject(r.serverInfo) ? r.serverInfo : { name: o.def.name, version: '' },
      instructions: typeof r.instructions === 'string' ? r.instructions : undefined,
    };
    const client = new UpstreamClient(o.def.name, t, negotiated, { ...o, codec, firstId: PROBE_IDS });
    await t.notify({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return { kind: 'ok', client };
  } catch (e) {
    if (e instanceof ProtocolError && !(e instanceof UpstreamError)) throw e;
    if (e instanceof TransportClosed) return { kind: 'not-this-era', why: `initialize: ${e.message}` };
    return {
      kind: 'not-this-era',
      why: `initialize: ${(e as Error).message}`,
      status: e instanceof HttpStatusError ? e.status : undefined,
    };
  }
}

/** mcpx's capabilities as a legacy initialize declares them: spelled for the revision, with the extensions
 *  an instance carries for its clients kept — a legacy client declares them in its own initialize, and
 *  ClientCapabilities is an open object in every revision (docs/protocol.md "Extensions across the
 *  gateway"). */
function atInitialize(caps: JsonObject): JsonObject {
  const spelled = downgradeClientCapabilities(caps, LATEST_LEGACY);
  return isObject(caps.extensions) ? { ...spelled, extensions: caps.extensions } : spelled;
}
