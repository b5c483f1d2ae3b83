// The relay inside a sandbox whose network allows loopback ports or hosts (its own bundle,
// dist/sandbox-relay.js, started by bubblewrap in the sandbox's empty network namespace): it listens on
// the sandbox's 127.0.0.1 at each allowed port, carries each connection to the unix socket the gateway
// serves for it (net.ts), then runs the server as its child, with its stdio, and ends as the server ends.
// Usage: sandbox-relay.js [--electron] PORT=SOCKET… -- COMMAND ARGS…
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';

async function main(argv: string[]): Promise<void> {
  const sep = argv.indexOf('--');
  const routes = argv.slice(0, sep);
  const [command, ...args] = argv.slice(sep + 1);
  if (sep < 0 || !command) {
    process.stderr.write('sandbox-relay: usage: [--electron] PORT=SOCKET… -- COMMAND ARGS…\n');
    process.exit(2);
  }
  // Our runtime's switch (VS Code's executable run as Node): not the server's.
  if (routes[0] === '--electron') {
    routes.shift();
    delete process.env.ELECTRON_RUN_AS_NODE;
  }
  for (const r of routes) {
    const [port, socket] = [Number(r.slice(0, r.indexOf('='))), r.slice(r.indexOf('=') + 1)];
    const server = createServer((c) => {
      const up = connect(socket);
      up.on('error', () => c.destroy());
      c.on('error', () => up.destroy());
      c.pipe(up).pipe(c);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    server.unref();
  }
  const child = spawn(command, args, { stdio: 'inherit' });
  for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(s, () => child.kill(s));
  child.on('error', (e) => {
    process.stderr.write(`sandbox-relay: ${command}: ${e.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + 15 : 1)));
}

main(process.argv.slice(2)).catch((e: Error) => {
  process.stderr.write(`sandbox-relay: ${e.message}\n`);
  process.exit(1);
});
