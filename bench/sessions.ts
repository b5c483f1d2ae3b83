// Memory per idle legacy HTTP session: RSS of `mcpx daemon` before and after N sessions are opened
// (initialize + notifications/initialized each, then left idle). Target: at most 50 KB per session.
// node build/bench/sessions.js [N=1000]   (after `node esbuild.mjs --tests`)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const N = Number(process.argv[2] ?? 1000);
const root = resolve(__dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'mcpx-sessions-'));
const config = join(dir, 'c.json');
const upstream = join(root, 'build', 'test', 'fixtures', 'upstream', 'server.js');
writeFileSync(
  config,
  JSON.stringify({
    servers: { echo: { command: process.execPath, args: [upstream, '--rev', '2025-11-25'] } },
    // Room for every session this measures (limits.sessions bounds them; 1,024 by default).
    settings: { 'mcp.passthrough': ['echo'], 'limits.sessions': N + 100 },
  }),
);
const env = { ...process.env, XDG_STATE_HOME: join(dir, 'state'), XDG_CONFIG_HOME: join(dir, 'cfg') };
const child = spawn(process.execPath, [join(root, 'dist', 'mcpx.js'), 'daemon', '--port', '0', '--config', config], {
  env,
  stdio: ['ignore', 'pipe', 'pipe'],
});

const rssKb = (): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const url = await new Promise<URL>((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) ok(new URL(m[1]!));
    });
    child.once('exit', () => fail(new Error(`daemon exited: ${out}`)));
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const post = (body: unknown, session?: string) =>
    new Promise<{ session?: string; text: string }>((ok, fail) => {
      const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
      if (session) {
        headers['Mcp-Session-Id'] = session;
        headers['MCP-Protocol-Version'] = '2025-11-25';
      }
      const r = request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers },
        (x) => {
          let text = '';
          x.on('data', (c) => (text += c));
          x.on('end', () => ok({ session: x.headers['mcp-session-id'] as string | undefined, text }));
        },
      );
      r.on('error', fail);
      r.end(JSON.stringify(body));
    });
  const open = async (i: number) => {
    const init = await post({
      jsonrpc: '2.0',
      id: i,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    });
    if (!init.session) throw new Error(`no session: ${init.text}`);
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, init.session);
    return init.session;
  };
  // Warm up: the code paths compiled, one session's worth of lazily built state made.
  for (let i = 0; i < 50; i++) await open(i);
  await sleep(1000);
  const before = rssKb();
  for (let i = 0; i < N; i++) await open(1000 + i);
  await sleep(2000);
  const after = rssKb();
  agent.destroy();
  console.log(
    `${N} idle legacy sessions: RSS ${before} -> ${after} kB, ${((after - before) / N).toFixed(1)} kB per session (target <= 50)`,
  );
}

main()
  .catch((e: Error) => {
    console.error(e.message);
    process.exitCode = 1;
  })
  .finally(() => {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  });
