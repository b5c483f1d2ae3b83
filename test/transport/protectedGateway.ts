// The protected-resource tests' kit (oauth-resource.test.ts, oauth-resource-identities.test.ts): a test
// issuer started for the file, a gateway that takes its tokens, and requests with a bearer token.
import { after, before } from 'node:test';
import { TestIssuer } from '../harness/issuer';
import { type TestGateway, fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';

export const LEGACY = '2025-11-25';
export const MODERN = '2026-07-28';
export const up = () => fixtureCommand(['--rev', LEGACY, '--name', 'up']);

export let issuer: TestIssuer;
before(async () => {
  issuer = await new TestIssuer().start();
});
after(async () => {
  await issuer.close();
  killAll();
});

export const PERMISSIONS = {
  rules: [
    { server: 'up', tool: 'add', client: { claims: { groups: 'admins' } }, action: 'allow' },
    { server: 'up', tool: 'add', action: 'deny' },
    { server: 'up', tool: 'echo', action: 'ask' },
  ],
};
export const PROFILES = {
  ops: { servers: ['up'], mode: 'passthrough', access: { claims: { groups: 'admins' }, scopes: ['ops'] } },
};

export async function protectedGateway(
  values: Record<string, unknown> = {},
  log?: (l: string) => void,
): Promise<TestGateway> {
  return gatewayFor(
    { up: up() },
    { 'auth.issuer': issuer.url, 'auth.scopes': ['mcp'], 'mcp.passthrough': ['up'], ...values },
    { permissions: PERMISSIONS, profiles: PROFILES },
    log ? { log } : {},
  );
}

export const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
export const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
export const JSON_TYPE = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
export const post = (url: string, h: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { ...JSON_TYPE, ...h }, body: PING });
