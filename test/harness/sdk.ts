// The official SDK client with every frame it receives validated against the negotiated revision.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { assertServerFrame, type Revision } from './schema';

/** Wrap a transport so every incoming frame is validated against the revision negotiated. */
export function validating(t: Transport): { transport: Transport; frames: unknown[] } {
  const frames: unknown[] = [];
  const methods = new Map<unknown, string>();
  const send = t.send.bind(t);
  t.send = (msg, opts) => {
    if ('method' in msg && 'id' in msg) methods.set(msg.id, msg.method);
    return send(msg, opts);
  };
  const wrap = () => {
    const inner = t.onmessage;
    t.onmessage = (msg, extra) => {
      const rev = ((t as { protocolVersion?: string }).protocolVersion ?? '2025-11-25') as Revision;
      const method = 'id' in msg ? methods.get(msg.id) : undefined;
      assertServerFrame(
        method === 'initialize'
          ? ((msg as { result?: { protocolVersion?: Revision } }).result?.protocolVersion ?? rev)
          : rev,
        msg,
        method,
      );
      frames.push(msg);
      inner?.(msg, extra);
    };
  };
  const start = t.start.bind(t);
  t.start = async () => {
    wrap();
    return start();
  };
  return { transport: t, frames };
}
