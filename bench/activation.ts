// Activation time of the extension in a real VS Code extension host (code-server, scripts/vscode-host):
// from activate() to the gateway listening, and from the bundle starting to load, with no upstream
// started eagerly (the workspace has one configured). The floor is a bare node:http listen in the same
// host. Runs the host RUNS times (each a fresh VS Code) and writes docs/performance-editor.md.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median } from './lib';

const RUNS = Number(process.env.RUNS ?? 5);
const root = join(__dirname, '..', '..');

async function main(): Promise<void> {
  const { runHost } = (await import(pathToFileURL(join(root, 'scripts', 'vscode-host', 'run.mjs')).href)) as {
    runHost(o: Record<string, unknown>): Promise<number>;
  };
  const rows: Array<{ evaluate: number; activateToListening: number; own: number; floor: number }> = [];
  for (let i = 0; i < RUNS; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-act-'));
    mkdirSync(join(dir, '.vscode'));
    writeFileSync(
      join(dir, '.vscode', 'mcp.json'),
      JSON.stringify({
        servers: {
          up: {
            command: process.execPath,
            args: [
              join(root, 'build', 'test', 'fixtures', 'upstream', 'server.js'),
              '--rev',
              '2025-11-25',
              '--name',
              'up',
            ],
          },
        },
      }),
    );
    let line = '';
    try {
      const code = await runHost({
        extensionPath: root,
        testsPath: join(root, 'build', 'vscode', 'activation.js'),
        workspace: dir,
        echo: false,
        timeoutMs: 120_000,
        onLog: (t: string) => t.startsWith('mcpx-bench: ') && (line = t),
      });
      if (code !== 0 || !line) throw new Error(`run ${i + 1} failed (${code})`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const t = JSON.parse(line.slice('mcpx-bench: '.length)) as {
      loadStart: number;
      loadEnd: number;
      activate: number;
      listening: number;
      floor: number;
    };
    rows.push({
      evaluate: t.loadEnd - t.loadStart,
      activateToListening: t.listening - t.activate,
      own: t.loadEnd - t.loadStart + (t.listening - t.activate),
      floor: t.floor,
    });
    process.stdout.write(
      `run ${i + 1}: bundle evaluated in ${(t.loadEnd - t.loadStart).toFixed(1)} ms; activate → listening ${(t.listening - t.activate).toFixed(1)} ms, floor ${t.floor.toFixed(1)} ms\n`,
    );
  }
  const a = median(rows.map((r) => r.activateToListening));
  const e = median(rows.map((r) => r.evaluate));
  const o = median(rows.map((r) => r.own));
  const f = median(rows.map((r) => r.floor));
  const out = [
    '# Performance in the editor',
    '',
    `Written by \`npm run bench:editor\` (bench/activation.ts) on ${new Date().toISOString().slice(0, 10)}: generated, do not edit.`,
    `${RUNS} fresh VS Code extension hosts (code-server 4.139.1, headless Chromium, this 2-core machine), one`,
    'upstream configured in the workspace and none started eagerly. The floor is a bare `node:http` server',
    'listening on a loopback port in the same extension host.',
    '',
    '| measure | median ms | runs (ms) |',
    '| --- | --- | --- |',
    `| activate() → gateway listening | ${a.toFixed(1)} | ${rows.map((r) => r.activateToListening.toFixed(1)).join(', ')} |`,
    `| evaluating dist/extension.js (before VS Code calls activate()) | ${e.toFixed(1)} | ${rows.map((r) => r.evaluate.toFixed(1)).join(', ')} |`,
    `| both: all the time mcpx itself takes to come up | ${o.toFixed(1)} | ${rows.map((r) => r.own.toFixed(1)).join(', ')} |`,
    `| floor: node:http listen | ${f.toFixed(1)} | ${rows.map((r) => r.floor.toFixed(1)).join(', ')} |`,
    '',
    `Target: activate() → listening under 150 ms: **${a < 150 ? 'met' : 'not met'}** (${a.toFixed(1)} ms; ${(a / f).toFixed(1)}x the floor).`,
    '',
  ];
  writeFileSync(join(root, 'docs', 'performance-editor.md'), out.join('\n'));
}

main().catch((e) => {
  process.stderr.write(`bench: ${(e as Error).stack}\n`);
  process.exit(1);
});
