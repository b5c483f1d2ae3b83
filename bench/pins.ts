// node build/bench/pins.js: what pins cost (docs/gateway.md "Pins"). Pins are applied where a list is
// fetched, never per call: `tools/list` of a pass-through gateway in front of 10 stdio servers × 30 tools
// (the fixture server, 2025-11-25, each tool named for its server), in process, with pins.mode hold and
// off — the lists cached as every client finds them — and the cost pins add to each fetch of a list:
// Pins.apply of 10 × 30 definitions against `<state>/tool-pins.json`, medians of ROUNDS. run.ts calls
// pinsBench() and writes its section into docs/performance.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../src/config/file';
import { Settings } from '../src/config/settings';
import { Gateway } from '../src/gateway/gateway';
import { Pins } from '../src/gateway/pins/pins';
import { FilePinStore } from '../src/gateway/pins/store';
import { editorContext } from '../src/vscode/editorCall';
import { median, runAlone, size } from './lib';

const root = join(__dirname, '..', '..');
const fixture = join(root, 'build', 'test', 'fixtures', 'upstream', 'server.js');
const SERVERS = 10;
const TOOLS = 30;
const ROUNDS = size(200, 3, 'BENCH_ROUNDS');

const names = (i: number) => Array.from({ length: TOOLS }, (_, j) => `s${i}_t${j}`);

function config() {
  const servers = Object.fromEntries(
    Array.from({ length: SERVERS }, (_, i) => [
      `s${i}`,
      {
        command: process.execPath,
        args: [fixture, '--rev', '2025-11-25', '--name', `s${i}`, ...names(i).flatMap((n) => ['--tool-name', n])],
        // Only its own named tools: the fixture's built-in ones would collide across servers.
        tools: { allow: [`s${i}_*`] },
      },
    ]),
  );
  return parseConfig({ servers }, 'bench', { env: process.env });
}

/** Median ms of one tools/list (the whole list, as a client gets it) with pins.mode `mode`. */
async function listing(mode: 'hold' | 'off'): Promise<{ ms: number; tools: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-pins-'));
  const settings = new Settings([
    {
      source: 'flag',
      values: {
        'pins.mode': mode,
        'mcp.passthrough': Array.from({ length: SERVERS }, (_, i) => `s${i}`),
        'pool.startTimeout': '20s',
      },
    },
  ]);
  const g = new Gateway(config(), settings, { stateDir: dir });
  try {
    const ctx = editorContext();
    const tools = (await g.listTools(ctx)).length; // started, fetched, pinned
    const times: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const t = performance.now();
      await g.listTools(ctx);
      times.push(performance.now() - t);
    }
    return { ms: median(times), tools };
  } finally {
    await g.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Median ms pins add to a fetch of every server's list: Pins.apply of each, read from the file. */
function perFetch(): number {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-pins-'));
  try {
    const pins = new Pins({
      store: FilePinStore.inState(dir),
      mode: () => 'hold',
      newTools: () => 'allow',
      log: () => undefined,
      held: () => undefined,
    });
    const lists = Array.from({ length: SERVERS }, (_, i) =>
      names(i).map((name) => ({
        name,
        description: `A named extra tool: echoes (${name})`,
        inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      })),
    );
    for (const [i, l] of lists.entries()) pins.apply(`s${i}`, 'tools', l);
    const times: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const t = performance.now();
      for (const [i, l] of lists.entries()) pins.apply(`s${i}`, 'tools', l);
      times.push(performance.now() - t);
    }
    return median(times);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface PinsFigures {
  on: number;
  off: number;
  tools: number;
  fetch: number;
}

export async function pinsBench(): Promise<PinsFigures> {
  const on = await listing('hold');
  const off = await listing('off');
  return { on: on.ms, off: off.ms, tools: on.tools, fetch: perFetch() };
}

export function pinsReport(f: PinsFigures): string[] {
  const ms = (x: number) => `${x.toFixed(3)} ms`;
  return [
    '### Pins (bench/pins.ts)',
    '',
    `\`tools/list\` of a pass-through gateway in front of ${SERVERS} stdio servers × ${TOOLS} tools (${f.tools} listed), in process, median of ${ROUNDS}.`,
    '',
    '| what | figure |',
    '| --- | --- |',
    `| tools/list, pins.mode hold | ${ms(f.on)} |`,
    `| tools/list, pins.mode off | ${ms(f.off)} |`,
    `| what pins add to each fetch of the ${SERVERS} lists (Pins.apply against tool-pins.json; never per call) | ${ms(f.fetch)} |`,
  ];
}

// Run alone (`node build/bench/pins.js`); bundled into run.js it only exports.
runAlone('pins.js', pinsBench, pinsReport);
