// A burst of pipelined calls reaches a stdio upstream's stdin in one write (src/wire/coalesce.ts): every
// frame queued in one turn of the event loop goes out together. Counted twice, on a real child process: the
// writes mcpx makes on the pipe (a spy on the socket's write), and the chunks the child reads from its
// stdin. What is held is bounded: past the bound the frames go out at once.
import assert from 'node:assert/strict';
import { Socket } from 'node:net';
import { afterEach, describe, test } from 'node:test';
import type { Request } from '../../src/protocol/jsonrpc';
import { StdioUpstream } from '../../src/upstream/stdio';
import { COALESCE_MAX_BYTES } from '../../src/wire/coalesce';

// The child answers each request with how many chunks its stdin has delivered so far.
const CHILD = `
let chunks = 0, buf = '';
process.stdin.on('data', (c) => {
  chunks++;
  buf += c;
  let nl;
  while ((nl = buf.indexOf('\\n')) >= 0) {
    const m = JSON.parse(buf.slice(0, nl));
    buf = buf.slice(nl + 1);
    if (m.id !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { chunks } }) + '\\n');
  }
});
`;

const MARK = 'coalesce-probe';
let restore: (() => void) | undefined;
let up: StdioUpstream | undefined;
afterEach(async () => {
  restore?.();
  await up?.close();
});

/** Every write of a frame carrying MARK onto any socket of this process (the child's stdin is one). */
function spyWrites(): string[] {
  const seen: string[] = [];
  const write = Socket.prototype.write;
  Socket.prototype.write = function (this: Socket, chunk: unknown, ...rest: unknown[]) {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
    if (text.includes(MARK)) seen.push(text);
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof write;
  restore = () => {
    Socket.prototype.write = write;
  };
  return seen;
}

const start = () =>
  new StdioUpstream(
    'probe',
    { command: process.execPath, args: ['-e', CHILD], env: { PATH: process.env.PATH } },
    () => undefined,
  );
const call = (id: number, pad = ''): Request => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: MARK, arguments: { pad } },
});

describe("an upstream's stdin", () => {
  test('a burst of 30 pipelined calls is one write, read by the child as one chunk, every call answered', async () => {
    up = start();
    const writes = spyWrites();
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => up!.request(call(i + 1))));
    assert.equal(writes.length, 1, 'one write onto the pipe for the whole burst');
    for (let i = 1; i <= 30; i++) assert.ok(writes[0]!.includes(`"id":${i},`), `call ${i} is in it`);
    assert.deepEqual(
      answers.map((a) => ('result' in a ? a.id : undefined)),
      Array.from({ length: 30 }, (_, i) => i + 1),
    );
    // The burst (under PIPE_BUF, so written atomically) is the child's first chunk: every answer says 1.
    assert.ok(Buffer.byteLength(writes[0]!) < 4096);
    assert.deepEqual(
      new Set(answers.map((a) => ('result' in a ? (a.result as { chunks: number }).chunks : -1))),
      new Set([1]),
    );
  });

  test('calls in separate turns are separate writes', async () => {
    up = start();
    const writes = spyWrites();
    await up.request(call(1));
    await up.request(call(2));
    assert.equal(writes.length, 2);
  });

  test('what one turn holds is bounded: past it the frames are written at once, and all still arrive', async () => {
    up = start();
    const writes = spyWrites();
    const pad = 'p'.repeat(Math.ceil(COALESCE_MAX_BYTES * 0.6));
    const answers = await Promise.all([1, 2, 3].map((id) => up!.request(call(id, pad))));
    // The second frame takes the held characters past the bound: frames 1 and 2 go at once, frame 3 at the turn's end.
    assert.equal(writes.length, 2);
    assert.ok(writes[0]!.includes('"id":1,') && writes[0]!.includes('"id":2,') && !writes[0]!.includes('"id":3,'));
    assert.equal(answers.length, 3);
  });

  test('a frame queued when the child has gone fails its call; nothing is written after', async () => {
    up = start();
    const closed = new Promise<void>((r) => {
      up!.onClose = () => r();
    });
    const pid = up.pid!;
    process.kill(pid, 'SIGKILL');
    await closed;
    const writes = spyWrites();
    await assert.rejects(up.request(call(9)), /probe.*(killed|closed)/);
    await new Promise((r) => setImmediate(r));
    assert.equal(writes.length, 0);
  });
});
