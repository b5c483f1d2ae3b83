// A real Redis for the tests (Debian's redis-server, installed by scripts/redis/setup.sh): started on a
// free loopback port with a temporary directory and an append-only file (so a restart keeps what was
// written, as a team's Redis should), stopped after. restart() stops it and starts it again on the same
// port and directory. Each server runs under the platform's reaper wrapper: a test process killed
// before its clean-up leaves none behind.
import { type ChildProcess, execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { system } from '../../src/platform';
import { until } from './wait';

/** redis-server with `args`, under the reaper wrapper. */
function server(args: string[]): ChildProcess {
  const c = system.spawnGuarded({ command: 'redis-server', args, env: process.env });
  c.stdout?.resume();
  c.stderr?.resume();
  return c;
}

/** Stopped, and gone. */
async function stopServer(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  await system.killTree(c, 2000);
}

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** Stopped for good, its directory removed. */
  close(): Promise<void>;
}

/** Whether redis-server can be started here (the setup script installs it for `npm test`). */
export function haveRedis(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

function answering(port: number): Promise<boolean> {
  const ping = () =>
    new Promise<boolean>((resolve) => {
      const sock = connect(port, '127.0.0.1');
      sock.once('connect', () => {
        sock.write('PING\r\n');
      });
      sock.once('data', (d) => {
        sock.destroy();
        resolve(d.toString().startsWith('+PONG'));
      });
      sock.once('error', () => resolve(false));
    });
  return until(ping, { what: `redis-server answering on port ${port}`, timeout: 10_000, every: 50 });
}

export async function startRedis(): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = server([
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--daemonize',
      'no',
      '--logfile',
      join(dir, 'redis.log'),
    ]);
    await answering(port);
  };
  const stop = async () => {
    const c = child;
    child = undefined;
    if (c) await stopServer(c);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    async restart() {
      await stop();
      await start();
    },
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A Redis Cluster of three masters on free loopback ports (cluster mode, `redis-cli --cluster create`),
 *  its url one of its nodes as store.url names it; stopped and removed by close(). */
export async function startRedisCluster(): Promise<{ url: string; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-redis-cluster-'));
  const ports = [await freePort(), await freePort(), await freePort()];
  const nodes = ports.map((port) =>
    server([
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      join(dir, `nodes-${port}.conf`),
      '--dir',
      dir,
      '--save',
      '',
      '--logfile',
      join(dir, `redis-${port}.log`),
    ]),
  );
  const close = async () => {
    await Promise.all(nodes.map(stopServer));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const p of ports) await answering(p);
    await new Promise<void>((resolve, reject) =>
      execFile(
        'redis-cli',
        ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-yes'],
        { timeout: 30_000 },
        (e) => (e ? reject(e) : resolve()),
      ),
    );
    // Every node agrees the cluster is whole before a client asks it for its slots.
    for (const p of ports)
      await until(
        () =>
          spawnSync('redis-cli', ['-p', String(p), 'cluster', 'info'], { encoding: 'utf8' }).stdout.includes(
            'cluster_state:ok',
          ),
        { what: `the cluster node on ${p} ok`, timeout: 15_000, every: 100 },
      );
  } catch (e) {
    await close();
    throw e;
  }
  return { url: `redis+cluster://127.0.0.1:${ports[0]}`, close };
}
