// node build/bench/artifacts.js: what artifacts save (docs/gateway.md "Artifacts"). A legacy client
// (2025-11-25, one HTTP session) calls the fixture's 1,000,000-character result through mcpx_call, in
// front of one stdio fixture server, with results.artifactOver off and at 64 KiB: the bytes the client
// receives for the call, and the median time of a call, of ROUNDS; with artifacts, also the bytes of the
// one resources/read that fetches the whole result when it is wanted. run.ts calls artifactsBench() and
// writes its section into docs/performance.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listen } from '../src/app/app';
import { parseConfig } from '../src/config/file';
import { Settings } from '../src/config/settings';
import { Gateway } from '../src/gateway/gateway';
import { median, runAlone, size } from './lib';

const root = join(__dirname, '..', '..');
const fixture = join(root, 'build', 'test', 'fixtures', 'upstream', 'server.js');
const ROUNDS = size(20, 2, 'BENCH_ROUNDS');
const OVER = 64 * 1024;

interface Mode {
  /** Bytes of the tools/call response body. */
  callBytes: number;
  callMs: number;
  /** Bytes of the resources/read response body that fetches the artifact (artifacts on). */
  readBytes?: number;
}

async function measure(over: number): Promise<Mode> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-artifacts-'));
  const config = parseConfig(
    { servers: { up: { command: process.execPath, args: [fixture, '--rev', '2025-11-25'] } } },
    'bench',
    { env: process.env },
  );
  const settings = new Settings([{ source: 'flag', values: { 'results.artifactOver': over } }]);
  const g = new Gateway(config, settings, { stateDir: dir });
  const l = await listen({ provider: g, settings, port: 0, address: '127.0.0.1' });
  let id = 1;
  let session: string | undefined;
  const post = async (method: string, params: object): Promise<{ text: string; bytes: number }> => {
    const res = await fetch(l.endpoint, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        ...(session ? { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-11-25' } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params }),
    });
    session ??= res.headers.get('mcp-session-id') ?? undefined;
    const body = new Uint8Array(await res.arrayBuffer());
    return { text: new TextDecoder().decode(body), bytes: body.length };
  };
  try {
    await post('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'bench', version: '0' },
    });
    const call = () =>
      post('tools/call', { name: 'mcpx_call', arguments: { server: 'up', tool: 'big', arguments: {} } });
    let last = await call(); // started, warmed
    const times: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const t = performance.now();
      last = await call();
      times.push(performance.now() - t);
    }
    const uri = /mcpx:\/\/artifacts\/[0-9a-f-]{36}/.exec(last.text)?.[0];
    const readBytes = uri ? (await post('resources/read', { uri })).bytes : undefined;
    return { callBytes: last.bytes, callMs: median(times), readBytes };
  } finally {
    await l.close();
    await g.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface ArtifactsFigures {
  off: Mode;
  on: Mode;
}

export async function artifactsBench(): Promise<ArtifactsFigures> {
  return { off: await measure(0), on: await measure(OVER) };
}

export function artifactsReport(f: ArtifactsFigures): string[] {
  const kb = (b: number) => `${(b / 1024).toFixed(1)} KiB`;
  return [
    '### Artifacts (bench/artifacts.ts)',
    '',
    `A 2025-11-25 client calls a tool whose result is 1,000,000 characters (mcpx_call, one stdio fixture server), over HTTP; median of ${ROUNDS} calls.`,
    '',
    '| results.artifactOver | bytes the client receives per call | median ms per call | bytes of the resources/read that fetches the whole |',
    '| --- | --- | --- | --- |',
    `| off | ${kb(f.off.callBytes)} | ${f.off.callMs.toFixed(2)} | — |`,
    `| ${OVER} | ${kb(f.on.callBytes)} | ${f.on.callMs.toFixed(2)} | ${f.on.readBytes === undefined ? '—' : kb(f.on.readBytes)} |`,
  ];
}

// Run alone (`node build/bench/artifacts.js`); bundled into run.js it only exports.
runAlone('artifacts.js', artifactsBench, artifactsReport);
