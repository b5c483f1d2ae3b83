// The task tests' kit (tasks.test.ts, tasks-store.test.ts): the conformance fixture as a pass-through
// server, the settings that make its calls tasks, and a listen stream read until a condition holds.
import { join } from 'node:path';
import { repoRoot } from '../harness/gateway';
import { fixtureCommand } from '../harness/upstreams';
import type { HttpClient, Json } from '../harness/wire';

export const EXT = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
export const CONFORMANCE = () => join(repoRoot(), 'build', 'test', 'fixtures', 'conformance', 'server.js');
export const servers = () => ({
  conf: { command: process.execPath, args: [CONFORMANCE()] },
  plain: fixtureCommand(['--rev', '2025-06-18', '--name', 'plain']),
  stuck: fixtureCommand(['--rev', '2025-11-25', '--name', 'stuck', '--fail', 'hang']),
});
export const settings = {
  'mcp.passthrough': 'conf',
  'protoMessages.taskAfter': '300ms',
  'proto.taskPollInterval': '100ms',
};

export const terminal = (t: Json) => ['completed', 'failed', 'cancelled'].includes(String(t.status));

/** Opens a subscriptions/listen stream and reads its SSE frames until `enough` says so; then closes it. */
export async function listenUntil(
  c: HttpClient,
  notifications: Json,
  meta: Json,
  enough: (frames: Json[]) => boolean,
): Promise<Json[]> {
  const body = {
    jsonrpc: '2.0',
    id: c.id(),
    method: 'subscriptions/listen',
    params: c.params({ notifications }, meta),
  };
  const ctl = new AbortController();
  const res = await fetch(c.url, {
    method: 'POST',
    headers: c.headers(body),
    body: JSON.stringify(body),
    signal: ctl.signal,
  });
  const reader = res.body!.getReader();
  let buf = '';
  const frames: Json[] = [];
  try {
    while (!enough(frames)) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += Buffer.from(value).toString();
      for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
        const data = buf
          .slice(0, i)
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5))
          .join('');
        buf = buf.slice(i + 2);
        if (data.trim()) frames.push(JSON.parse(data) as Json);
      }
    }
  } finally {
    ctl.abort();
  }
  return frames;
}
