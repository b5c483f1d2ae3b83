// What mcpx declares to its upstreams as a client: the questions it can answer itself, and — for a
// pass-through server — a calling client's own declarations narrowed to those.
import { canonicalDigest } from '../../kit/canonical';
import { carriedExtensions } from '../../protocol/extensions';
import type { JsonObject } from '../../protocol/jsonrpc';
import type { CallContext } from '../../server/provider';
import type { ExtensionSet } from '../../upstream/instances';

/** What mcpx itself can answer when an upstream asks; declared to upstreams (2025-11-25 client/roots,
 *  client/elicitation, client/sampling; docs/questions.md "Who answers"): roots always; elicitation and
 *  sampling because a question always has an answerer — the calling client where it declared the
 *  capability, else the broker, which any answerer can reach until the question's deadline; sampling with
 *  tools too (2025-11-25 client/sampling "Tools in Sampling"), which the editor answers through the
 *  language model API's tool calling (docs/questions.md "Sampling in the editor"). Spelled per revision
 *  by the edge (downgradeClientCapabilities). No extension: an extension set's instance declares what its
 *  clients did (docs/protocol.md "Extensions across the gateway", "Skills"). */
export const MCPX_CAPABILITIES: JsonObject = {
  roots: { listChanged: true },
  elicitation: { form: {}, url: {} },
  sampling: { tools: {} },
};

/** A client's capabilities narrowed to what mcpx itself has: never declare upstream what the client
 *  did not (docs/gateway.md "Pass-through"); its extensions, known to mcpx or not, as it declared them
 *  (docs/protocol.md "Extensions across the gateway"). */
export function narrowed(ctx: CallContext): JsonObject {
  const out: JsonObject = {};
  const ext = carriedExtensions(ctx.clientCapabilities);
  if (ext) out.extensions = ext;
  for (const k of Object.keys(MCPX_CAPABILITIES)) {
    if (!(k in ctx.clientCapabilities)) continue;
    // roots: mcpx answers them itself (its own listChanged); elicitation and sampling: exactly what
    // the client declared (form vs url, tools, context), since the question may go to it.
    out[k] = k === 'roots' ? MCPX_CAPABILITIES[k] : ctx.clientCapabilities[k];
  }
  return out;
}

/** The extensions a pass-through server sees the calling client declare, keyed by their canonical form
 *  (one upstream instance per distinct set where the upstream reads them once, at initialize; one list
 *  per set in the catalogue); undefined where the client declared none. */
export function extensionSet(ctx: Pick<CallContext, 'clientCapabilities'>): ExtensionSet | undefined {
  const extensions = carriedExtensions(ctx.clientCapabilities);
  return extensions && { key: canonicalDigest(extensions).slice(0, 16), extensions };
}
