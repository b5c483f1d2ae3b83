// What mcpx declares to its upstreams as a client: the questions it can answer itself, and — for a
// pass-through server — a calling client's own declarations narrowed to those.
import type { JsonObject } from '../protocol/jsonrpc';
import type { CallContext } from '../server/provider';

/** What mcpx itself can answer when an upstream asks; declared to upstreams (2025-11-25 client/roots,
 *  client/elicitation, client/sampling; docs/questions.md "Who answers"): roots always; elicitation and
 *  sampling because a question always has an answerer — the calling client where it declared the
 *  capability, else the broker, which any answerer can reach until the question's deadline; sampling with
 *  tools too (2025-11-25 client/sampling "Tools in Sampling"), which the editor answers through the
 *  language model API's tool calling (docs/questions.md "Sampling in the editor"). Spelled per revision
 *  by the edge (downgradeClientCapabilities). */
export const MCPX_CAPABILITIES: JsonObject = {
  roots: { listChanged: true },
  elicitation: { form: {}, url: {} },
  sampling: { tools: {} },
};

/** A client's capabilities narrowed to what mcpx itself has: never declare upstream what the client
 *  did not (docs/gateway.md "Pass-through"). */
export function narrowed(ctx: CallContext): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(MCPX_CAPABILITIES)) {
    if (!(k in ctx.clientCapabilities)) continue;
    // roots: mcpx answers them itself (its own listChanged); elicitation and sampling: exactly what
    // the client declared (form vs url, tools, context), since the question may go to it.
    out[k] = k === 'roots' ? MCPX_CAPABILITIES[k] : ctx.clientCapabilities[k];
  }
  return out;
}
