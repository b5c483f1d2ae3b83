// What the MCP Apps tests share (docs/gateway.md "MCP Apps"): the ui extension as a rendering host declares
// it, the example app's URI, and a client of a revision that has initialized.
import assert from 'node:assert/strict';
import type { Revision } from './schema';
import { HttpClient, type Json } from './wire';

const MODERN: Revision = '2026-07-28';
export const ERAS: Revision[] = ['2025-11-25', MODERN];
export const UI = 'io.modelcontextprotocol/ui';
export const MIME = 'text/html;profile=mcp-app';
/** What a host that renders apps declares (ext-apps' own client does so). */
export const HOST = { extensions: { [UI]: { mimeTypes: [MIME] } } };
export const APP_URI = 'ui://forecast/view.html';

export async function appsClient(url: string, rev: Revision, capabilities?: Json): Promise<HttpClient> {
  const c = new HttpClient(url, rev, capabilities ? { capabilities } : {});
  if (rev !== MODERN) assert.ok((await c.initialize()).result, 'initialized');
  return c;
}

export const names = (r: Json | undefined) => ((r?.tools ?? []) as Json[]).map((t) => String(t.name)).sort();
export const text = (r: Json | undefined) => String(((r?.content ?? []) as Json[])[0]?.text);
