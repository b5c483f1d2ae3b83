// A running gateway's /v1 API (docs/gateway.md), as `mcpx elicit` and `mcpx tasks` reach it: as the
// person, who holds the endpoint secret — the one in an --endpoint URL's /mcp/<secret> path, else the
// install's (docs/security.md "The endpoint secret").
import { defaultStateDir } from '../config/paths';
import { elicitSecret, readSecret } from '../config/secret';
import { runningDaemon } from '../shim/resolve';
import type { Args } from './args';

export function v1(a: Args) {
  const base = new URL(a.endpoint ?? `http://127.0.0.1:${process.env.MCPX_PORT || 8899}/mcp`);
  const secret = elicitSecret(base, () => readSecret(defaultStateDir(process.env)));
  return {
    at: (path: string) => new URL(path, base).toString(),
    auth: (secret ? { Authorization: `Bearer ${secret}` } : {}) as Record<string, string>,
    /** A refused request as the error it names. */
    refusal: async (res: Response) => {
      const out = (await res.json().catch(() => ({}))) as { error?: string | { message?: string } };
      return new Error((typeof out.error === 'string' ? out.error : out.error?.message) ?? `HTTP ${res.status}`);
    },
  };
}

/** The running gateway's /v1 API: --endpoint, else the daemon's. */
export function gatewayV1(a: Args): ReturnType<typeof v1> {
  const endpoint = a.endpoint ?? runningDaemon(defaultStateDir(process.env))?.endpoint;
  if (!endpoint) throw new Error('no running daemon (mcpx daemon); name a gateway with --endpoint URL');
  return v1({ ...a, endpoint });
}
