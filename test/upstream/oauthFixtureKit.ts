// The OAuth fixture tests' kit (oauth-fixture.test.ts, oauth-fixture-refusals.test.ts): a JSON-RPC request
// to the fixture's protected server with a token, a session opened, and the tools it lists.
import assert from 'node:assert/strict';
import type { OAuthFixture } from '../harness/oauth';

type Json = Record<string, unknown>;

export async function rpc(
  fx: OAuthFixture,
  token: string | undefined,
  body: Json,
  session?: string,
): Promise<Response> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
  };
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  if (session !== undefined) {
    headers['Mcp-Session-Id'] = session;
    headers['MCP-Protocol-Version'] = '2025-06-18';
  }
  return fetch(fx.mcp, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', ...body }) });
}

/** initialize + initialized with the bearer: the session id. */
export async function session(fx: OAuthFixture, token: string): Promise<string> {
  const init = await rpc(fx, token, {
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  assert.equal(init.status, 200);
  const sid = init.headers.get('mcp-session-id')!;
  assert.ok(sid);
  await init.text();
  assert.equal((await rpc(fx, token, { method: 'notifications/initialized' }, sid)).status, 202);
  return sid;
}

export async function toolNames(fx: OAuthFixture, token: string, sid: string): Promise<string[]> {
  const r = await rpc(fx, token, { id: 2, method: 'tools/list' }, sid);
  assert.equal(r.status, 200);
  const body = (await r.json()) as { result: { tools: Array<{ name: string }> } };
  return body.result.tools.map((t) => t.name);
}
