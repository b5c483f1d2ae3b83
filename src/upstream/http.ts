// An upstream over Streamable HTTP: the one Streamable HTTP client (streamable.ts) over fetch, with OAuth as
// middleware in front of it (docs/gateway.md "Signing in to upstreams"): every request carries the
// sign-in's headers (a DPoP proof where bound), and a POST refused with 401, a DPoP nonce or an
// insufficient_scope 403 is handed to the Authorizer before it is sent again.
import type { Authorizer } from './auth/authorizer';
import { retries } from './auth/refusal';
import { type HttpAnswer, type HttpPort, StreamableHttp, Unreachable } from './streamable';
import { type UpstreamBounds, type UpstreamTransport, boundsWithDefaults } from './transport';

export { SessionExpired, StreamBroken } from './streamable';

export interface HttpUpstreamOptions {
  url: string;
  headers: Record<string, string>;
  log: (line: string) => void;
  /** What is read is bounded: a JSON body, an SSE event, a message's nesting (defaults: the settings'). */
  bounds?: Partial<UpstreamBounds>;
  /** OAuth to this upstream: its headers on every request; a refused POST handed to it first. */
  auth?: Authorizer;
}

/** fetch, its failure to reach the upstream an Unreachable naming the network's cause. */
async function fetched(url: string, init: RequestInit & { signal: AbortSignal }): Promise<globalThis.Response> {
  try {
    return await fetch(url, init);
  } catch (e) {
    if (init.signal.aborted) throw e;
    throw new Unreachable(String((e as Error).cause ?? (e as Error).message));
  }
}

/** The port over global fetch. */
const fetchPort: HttpPort = async (url, ask) => answerOf(await fetched(url, ask));

function answerOf(res: globalThis.Response): HttpAnswer {
  return {
    status: res.status,
    header: (name) => res.headers.get(name) ?? undefined,
    body: res.body ?? (async function* () {})(),
    cancel: () => void res.body?.cancel().catch(() => undefined),
  };
}

/** OAuth in front of fetch: the sign-in's headers on each request; a POST the upstream refuses for want of
 *  them (auth/refusal.ts) sent again once the Authorizer has done its part. `interactive`: whether the
 *  person may be asked now (after the handshake; connect() asks during it). */
function withAuth(auth: Authorizer, interactive: () => boolean): HttpPort {
  return async (url, ask) => {
    const tries = retries();
    for (;;) {
      // A session's DELETE at close goes without them rather than not at all.
      const sent =
        (await (ask.method === 'DELETE'
          ? auth.headers(ask.method, url).catch(() => undefined)
          : auth.headers(ask.method, url))) ?? {};
      const res = await fetched(url, { ...ask, headers: { ...ask.headers, ...sent } });
      if (ask.method !== 'POST') return answerOf(res);
      const again = await auth.retry(res, sent, tries, { interactive: interactive(), signal: ask.signal });
      if (!again) return answerOf(res);
    }
  };
}

export class HttpUpstream extends StreamableHttp implements UpstreamTransport {
  readonly kind = 'http' as const;
  /** Set once the handshake is done: from then on a 401 may ask the person inline (during the handshake
   *  connect() does, outside its timeouts). */
  connected = false;

  constructor(
    readonly name: string,
    opts: HttpUpstreamOptions,
  ) {
    super({
      name,
      url: opts.url,
      headers: opts.headers,
      log: opts.log,
      bounds: boundsWithDefaults(opts.bounds),
      port: opts.auth ? withAuth(opts.auth, () => this.connected) : fetchPort,
    });
  }
}
