// Runs inside the VS Code extension host (bench/activation.ts starts it): reads the extension's own
// timings and measures a floor in the same host — a bare node:http server bound to a loopback port.
import { createServer } from 'node:http';
import * as vscode from 'vscode';

export async function run(): Promise<void> {
  const ext = vscode.extensions.getExtension('mcpx.mcpx');
  if (!ext) throw new Error('mcpx is not installed');
  const x = (await ext.activate()) as { timings: { loadStart?: number; activate?: number; listening?: number } };
  const t0 = performance.now();
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const floor = performance.now() - t0;
  server.close();
  console.log(`mcpx-bench: ${JSON.stringify({ ...x.timings, floor })}`);
}
