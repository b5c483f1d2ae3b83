// Settings of mcpx as an OAuth 2.1 protected resource (docs/security.md "Two ways in"; 2025-06-18..2026-07-28
// basic/authorization): off unless an issuer is named. Read at start.
import { D, type SettingDef } from './def';

export const AUTH: readonly SettingDef[] = [
  D(
    'auth.issuer',
    'string',
    '',
    "An OAuth / OpenID issuer URL whose access tokens mcpx accepts on `/mcp`, each profile's endpoint and `/v1` (its metadata and keys are discovered; https, or http on a loopback host). Empty: no tokens, the endpoint secret alone. Read at start.",
  ),
  D(
    'auth.audience',
    'string',
    '',
    "The resource identifier tokens must be issued for (RFC 8707; their `aud`): the URL of `/mcp` as clients reach it, e.g. `https://mcp.example.com/mcp`; a profile's endpoint is it plus `/<profile>`. Empty: the endpoint's own URL, `http://<Host>/mcp`. Read at start.",
  ),
  D(
    'auth.scopes',
    'list',
    [],
    'Scopes every token must carry (403 `insufficient_scope` without them); said in the 401 challenge and the protected resource metadata. A profile may require more (`access.scopes`). Read at start.',
  ),
  D(
    'auth.allowSecret',
    'boolean',
    true,
    'With auth.issuer set, the endpoint secret still lets in the person (the editor, the command line) beside tokens. Off: tokens only. Read at start.',
  ),
  D(
    'auth.clientId',
    'string',
    '',
    "mcpx's client id at the issuer, for token introspection (RFC 7662) of tokens that are not JWTs. Empty: only JWT access tokens are accepted. Read at start.",
  ),
  D(
    'auth.clientSecret',
    'string',
    '',
    'The secret of auth.clientId (client_secret_basic); give it as `${env:NAME}` in the config file or in MCPX_AUTH_CLIENT_SECRET, never in a shared file. `mcpx settings` does not print it. Read at start.',
    { secret: true },
  ),
  D(
    'auth.fetchTimeout',
    'duration',
    5_000,
    'How long a fetch from the issuer (metadata, keys, introspection) may take; past it the request is answered 503, and the next one fetches again. Read at start.',
    { min: 1 },
  ),
  D(
    'auth.keysRefetch',
    'duration',
    30_000,
    "The least time between two fetches of the issuer's keys when a token names a key mcpx does not hold (a key rotated in). Read at start.",
  ),
];
