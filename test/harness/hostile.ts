// The hostile fixture upstream (test/fixtures/upstream/hostile.ts) as the tests start it: over stdio as a
// server definition, over Streamable HTTP as a process of its own; what it recorded; and the gateway's
// memory once garbage is collected.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { repoRoot } from './gateway';

export const HOSTILE_JS = (): string => join(repoRoot(), 'build', 'test', 'fixtures', 'upstream', 'hostile.js');

/** A stdio server definition running the hostile fixture. */
export const hostile = (...args: string[]) => ({ command: process.execPath, args: [HOSTILE_JS(), ...args] });

const started = new Set<ChildProcess>();

/** The hostile fixture over Streamable HTTP: its process and URL. */
export async function httpHostile(...args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [HOSTILE_JS(), '--transport', 'http', ...args], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  started.add(child);
  child.on('exit', () => started.delete(child));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`hostile fixture exited with ${code}`)));
  });
  return { child, url: line.split(' ').at(-1)! };
}

export function killHostiles(): void {
  for (const c of started) c.kill('SIGKILL');
}

export interface HostileEvent {
  event: string;
  pid: number;
  [k: string]: unknown;
}

/** What the fixture recorded so far (--record). */
export function events(file: string): HostileEvent[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as HostileEvent);
}

/** Heap and off-heap bytes in use in this process (the in-process gateway's), after a full collection. */
export function memoryInUse(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external + m.arrayBuffers;
}
