// The watchdog of a process mcpx starts on Windows (watched.ts; its own bundle, dist/watchdog.js):
// starts the command through cross-spawn (PATH and PATHEXT, a .cmd or .bat run by cmd.exe with its
// arguments quoted for it), with the watchdog's own stdin, stdout and stderr; reads fd 3, the gateway's
// pipe; when that ends the gateway is gone, and it ends the command's whole tree. It ends as the command
// ends, with its exit code.
// Usage: watchdog.js [--electron] -- COMMAND ARGS…
import { spawnSync } from 'node:child_process';
import { Socket } from 'node:net';
import crossSpawn from 'cross-spawn';
import { taskkillArgs, taskkillPath } from './watched';

function main(argv: string[]): void {
  const sep = argv.indexOf('--');
  const [command, ...args] = argv.slice(sep + 1);
  if (sep < 0 || !command) {
    process.stderr.write('mcpx watchdog: usage: [--electron] -- COMMAND ARGS…\n');
    process.exit(2);
  }
  // Our runtime's switch (VS Code's executable run as Node): not the command's.
  if (argv.slice(0, sep).includes('--electron')) delete process.env.ELECTRON_RUN_AS_NODE;
  const child = crossSpawn(command, args, { stdio: 'inherit', windowsHide: true });
  child.on('error', (e) => {
    process.stderr.write(`mcpx: could not start ${command}: ${e.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  // A console's Ctrl+C, Ctrl+Break or close reaches every process on it: the gateway decides, not us.
  for (const s of ['SIGINT', 'SIGBREAK', 'SIGHUP'] as const) process.on(s, () => undefined);
  const gateway = new Socket({ fd: 3, readable: true, writable: false });
  const orphaned = (): void => {
    if (child.pid !== undefined && child.exitCode === null)
      spawnSync(taskkillPath(process.env), taskkillArgs(child.pid), { windowsHide: true, timeout: 10_000 });
    child.kill();
    process.exit(1);
  };
  gateway.on('data', () => undefined);
  gateway.on('end', orphaned);
  gateway.on('error', orphaned);
}

main(process.argv.slice(2));
