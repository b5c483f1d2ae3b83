// The least a gateway in front of a stdio upstream can do: node:http in, the upstream's newline-delimited
// stdio out, request ids mapped, the answer sent back. No sessions, no revisions, no checks, no
// cancellation: the floor for any Node gateway of one stdio upstream, measured beside mcpx
// (bench/gateway.ts). Usage: node forwarder.js UPSTREAM.js [its args…]; prints its URL when ready.
import { spawn } from 'node:child_process';
import { type ServerResponse, createServer } from 'node:http';
import { createInterface } from 'node:readline';

const [upstream, ...args] = process.argv.slice(2);
const child = spawn(process.execPath, [upstream!, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
const waiting = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();
let next = 1;

createInterface({ input: child.stdout }).on('line', (line) => {
  const m = JSON.parse(line) as { id?: number; result?: unknown; error?: unknown };
  if (typeof m.id !== 'number') return;
  waiting.get(m.id)?.(m);
  waiting.delete(m.id);
});

function send(method: string, params: unknown): Promise<{ result?: unknown; error?: unknown }> {
  const id = next++;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  });
}

function answer(res: ServerResponse, body: string): void {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

void send('initialize', {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'forwarder', version: '0' },
}).then(() => {
  child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      const msg = JSON.parse(body) as { id: unknown; method: string; params?: unknown };
      void send(msg.method, msg.params).then((r) =>
        answer(
          res,
          JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...('error' in r ? { error: r.error } : { result: r.result }) }),
        ),
      );
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const a = server.address() as { port: number };
    process.stdout.write(`forwarder listening on http://127.0.0.1:${a.port}/mcp\n`);
  });
  process.on('SIGTERM', () => {
    child.kill();
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
});
