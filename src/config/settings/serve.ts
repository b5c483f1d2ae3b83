// Settings of the gateway as a server: where it listens, which revisions it holds to, its transports.
import { NEWEST_FIRST } from '../../protocol/revisions';
import { D, type SettingDef } from './def';

export const SERVE: readonly SettingDef[] = [
  D('port', 'integer', 8899, 'Loopback port of the gateway (the next free one if taken, in VS Code).', { min: 0 }),
  D(
    'address',
    'string',
    '127.0.0.1',
    'Address the gateway binds. Beyond loopback, anything that can reach it can run tools as you.',
  ),
  D(
    'spec.precedence',
    'revisions',
    [...NEWEST_FIRST],
    'Revisions in the order their rules win where revisions conflict; a partial list is completed newest first.',
  ),
  D('spec.first', 'revision', '', 'Moves one revision to the front of spec.precedence (--mcp-spec).', {
    env: ['MCPX_MCP_SPEC'],
  }),
  D('spec.lenient', 'revisions', [], 'Revisions mcpx does not hold strictly.'),
  D('transport.sseKeepAlive', 'duration', 15_000, 'Interval of SSE keep-alive comments on every stream mcpx serves.'),
  D(
    'transport.allowedOrigins',
    'list',
    [],
    "Origins allowed besides loopback and the gateway's own address; a request whose Host is one's host and port is allowed too (a port forwarded to the gateway, a proxy in front of it).",
  ),
  D('transport.stdioDrain', 'duration', 5_000, 'How long requests in flight may finish after stdin ends.'),
  D('transport.maxBodyBytes', 'integer', 4 * 1024 * 1024, 'Largest request body accepted over HTTP (413 beyond).', {
    min: 1024,
  }),
  D(
    'transport.sessionIdleTimeout',
    'duration',
    3_600_000,
    'A legacy HTTP session unused this long (and with no stream open) is ended.',
  ),
  D(
    'transport.sessionInitIdle',
    'duration',
    30_000,
    'A legacy HTTP session that, since its initialize, has sent no request and opened no GET stream is ended after this long (its next request gets 404 and initializes again), so a flood of initialize cannot hold limits.sessions (0: only transport.sessionIdleTimeout).',
  ),
  D(
    'transport.headersTimeout',
    'duration',
    10_000,
    'Longest a client may take to send the headers of a request, from the moment it could start; past it the connection is answered 408 and closed (0: no bound; at most transport.requestTimeout).',
  ),
  D(
    'transport.requestTimeout',
    'duration',
    60_000,
    'Longest a client may take to send a whole request, headers and body (408 past it, and the connection closed; 0: no bound). It does not bound the response: a long call or an open SSE stream is not cut.',
  ),
  D(
    'transport.maxConnections',
    'integer',
    512,
    'Most HTTP connections the gateway holds at once (open streams, requests being sent, idle keep-alive connections); past it a new connection is answered 503 naming this setting and closed.',
    { min: 1 },
  ),
  D(
    'transport.secret',
    'boolean',
    true,
    'Serve only requests that carry the endpoint secret (Authorization: Bearer, or the /mcp/<secret> path). Off, anything that can reach the port runs tools as you.',
  ),
  D(
    'transport.maxLineBytes',
    'integer',
    4 * 1024 * 1024,
    "Longest stdio line read, from a client or a stdio upstream (the twin of transport.maxBodyBytes): a client's longer line is answered -32600 and discarded; an upstream's closes its connection.",
    {
      min: 1024,
    },
  ),
  D(
    'transport.maxInflightPerConnection',
    'integer',
    32,
    'Most requests in flight on one HTTP connection (pipelined ones; an open stream counts): past it a request is answered 429 naming this setting, on its head alone, its body never read.',
    { min: 1 },
  ),
  D(
    'transport.maxInflightPerIdentity',
    'integer',
    1024,
    'Most HTTP requests in flight for one legacy session (by Mcp-Session-Id; its GET stream counts): past it a request is answered 429 naming this setting, on its head alone, its body never read. Below it, limits.inflightPerIdentity queues. Also the most HTTP API calls (/v1/call) in flight for one identity (429).',
    { min: 1 },
  ),
  D(
    'chatProfile',
    'string',
    '',
    'The profile whose tools VS Code\'s own chat is offered (its endpoint /mcp/<secret>/<profile>; docs/gateway.md "Profiles"); empty, or a name no profile has: the default set. Read by the editor.',
  ),
];
