// The floor: a trivial node:http responder that answers every POST with a fixed JSON-RPC result, and
// with --stdio the same over newline-delimited stdio. Nothing can be faster through the same driver.
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';

const answer = (id: string) => `{"jsonrpc":"2.0","id":${id},"result":{}}`;

if (process.argv.includes('--stdio')) {
  createInterface({ input: process.stdin }).on('line', (line) => {
    const id = /"id":(\d+)/.exec(line)?.[1] ?? '0';
    process.stdout.write(answer(id) + '\n');
  });
} else {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const id = /"id":(\d+)/.exec(body)?.[1] ?? '0';
      const text = answer(id);
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const a = server.address() as { port: number };
    process.stdout.write(`floor listening on http://127.0.0.1:${a.port}/mcp\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
