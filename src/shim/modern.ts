// How a 2026-07-28 request of a stdio client travels through the shim over Streamable HTTP: the shim's
// own identity for a request that names none (docs/protocol.md "Client identity"), and the headers the
// transport requires, set from the body (2026-07-28 streamable-http "Standard Request Headers").
import type { JsonObject, Request, Response } from '../protocol/jsonrpc';
import { isObject } from '../protocol/jsonrpc';
import { META } from '../protocol/meta';
import { codecOfRequest, travelsAlone } from '../protocol/eras';
import { encodeHeaderValue } from '../wire/headers';
import { type HeaderParam, headerParams, paramHeaders } from '../wire/paramHeaders';

/** Whether a request (or notification) goes alone, with its headers, rather than in the shim's session
 *  (protocol/eras `travelsAlone`). */
export const isModern = travelsAlone;

/** A method that can travel as the Mcp-Method header as it is (visible ASCII): any other names no method. */
export const HEADER_SAFE_METHOD = /^[\x21-\x7e]+$/;

export class ModernHttp {
  /** x-mcp-header arguments of the tools the gateway listed to this shim: a 2026-07-28 tools/call carries
   *  each as its Mcp-Param-<Name> header (2026-07-28 streamable-http "Custom Headers from Tool
   *  Parameters"). Learned from the lists the client's requests bring back, or asked for once. */
  private readonly toolHeaders = new Map<string, HeaderParam[]>();
  private toolsListed?: Promise<void>;

  /** `identity`: this shim's, for its requests that name none (128 random bits). */
  constructor(private readonly identity: string) {}

  /** A 2026-07-28 request naming no identity is the shim's (one identity per agent). */
  named(req: Request): Request {
    const params = req.params as JsonObject;
    const meta = params._meta as JsonObject;
    if (typeof meta[META.session] === 'string') return req;
    return { ...req, params: { ...params, _meta: { ...meta, [META.session]: this.identity } } };
  }

  /** The version, the method, the name (the codec's request headers), and a tools/call's Mcp-Param-*
   *  headers where the era honours x-mcp-header. */
  headers(req: Request): Record<string, string> {
    const params = isObject(req.params) ? req.params : {};
    const codec = codecOfRequest(params);
    const h = codec?.client.headers(req.method, params, encodeHeaderValue) ?? {};
    const name = params.name;
    const annotated =
      codec?.client.paramHeaders('http') && req.method === 'tools/call' && typeof name === 'string'
        ? this.toolHeaders.get(name)
        : undefined;
    if (annotated) Object.assign(h, paramHeaders(annotated, isObject(params.arguments) ? params.arguments : {}));
    return h;
  }

  /** The x-mcp-header arguments of the tools of a tools/list result. */
  learn(tools: unknown): void {
    if (!Array.isArray(tools)) return;
    for (const t of tools) {
      if (!isObject(t) || typeof t.name !== 'string') continue;
      const found = headerParams(t.inputSchema);
      if ('params' in found && found.params.length) this.toolHeaders.set(t.name, found.params);
    }
  }

  /** Before the first tools/call of a tool the shim has not seen listed: the gateway's tools, once (every
   *  page), under the caller's own capabilities and identity, through `send`. */
  learnTools(req: Request, send: (list: Request, headers: Record<string, string>) => Promise<Response>): Promise<void> {
    const name = isObject(req.params) ? req.params.name : undefined;
    if (typeof name !== 'string' || this.toolHeaders.has(name)) return Promise.resolve();
    this.toolsListed ??= (async () => {
      const meta = (req.params as JsonObject)._meta;
      let cursor: unknown;
      for (let page = 0; page < 100; page++) {
        const list: Request = {
          jsonrpc: '2.0',
          id: `mcpx-shim-tools-${page}`,
          method: 'tools/list',
          params: { ...(typeof cursor === 'string' ? { cursor } : {}), _meta: meta },
        };
        const r = await send(list, this.headers(list)).catch(() => undefined);
        if (!r || !('result' in r)) return;
        this.learn(r.result.tools);
        cursor = r.result.nextCursor;
        if (typeof cursor !== 'string') return;
      }
    })();
    return this.toolsListed;
  }
}
