// Writing the answer to a POST: one request's response as JSON, or as an SSE stream once something must
// be streamed (docs/protocol.md "Lazy SSE"); a batch's responses as one JSON array.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { httpStatus } from '../protocol/errors';
import type { Notification, Request } from '../protocol/jsonrpc';
import type { Revision } from '../protocol/revisions';
import type { Runner } from '../server/runner';
import { Abort } from '../wire/abort';
import { sendJson } from '../wire/json';
import { SseStream } from '../wire/sse';
import type { HttpContext } from './context';
import { HttpRefusal, header } from './refusal';
import type { Session } from './sessions';

/** Notifications a batched request emits have no stream to ride on; they are dropped. Outside a
 *  session a dropped connection cancels the batch's requests. */
export async function answerBatch(
  res: ServerResponse,
  runner: Runner,
  items: unknown[],
  rev: Revision,
  inSession: boolean,
): Promise<void> {
  const ctl = new AbortController();
  const onClose = () => !res.writableFinished && !inSession && ctl.abort(new Error('client disconnected'));
  res.on('close', onClose);
  try {
    const out = await runner.batch(items, rev, { emit: () => undefined }, ctl.signal);
    if ('refused' in out) throw new HttpRefusal(400, out.refused);
    if (out.responses.length === 0) return void res.writeHead(202).end();
    sendJson(res, 200, out.responses, { text: out.text });
  } finally {
    res.off('close', onClose);
  }
}

/** Runs one request; the response is JSON, or an SSE stream once something must be streamed. Within a
 *  legacy session a dropped connection is not a cancellation, and a question can be put (its answer
 *  comes back on another POST of the session); outside one, neither. */
export async function answerRequest(
  ctx: HttpContext,
  req: IncomingMessage,
  res: ServerResponse,
  a: {
    runner: Runner;
    msg: Request;
    rev: Revision;
    session?: Session;
    /** 2026-07-28 tools/call: its Mcp-Param-* headers. */
    paramHeaders?: Record<string, string>;
  },
): Promise<void> {
  const { runner, msg, rev, session, paramHeaders } = a;
  const inSession = session !== undefined;
  const disconnectCancels = !inSession;
  const ctl = new Abort();
  const acceptsSse = (header(req, 'accept') ?? '').includes('text/event-stream');
  const keepAliveMs = ctx.settings.duration('transport.sseKeepAlive');
  // Only a client that accepts SSE can get a stream; for the others none is made.
  const stream = acceptsSse ? new SseStream(res, keepAliveMs) : undefined;
  // A slow answer to a client that accepts SSE becomes a stream with keep-alive comments, so idle
  // timeouts on the way do not end a call that is still running (docs/protocol.md "Lazy SSE").
  stream?.keepAlive();
  const onClose = () => {
    if (res.writableFinished) return;
    if (disconnectCancels) ctl.abort(new Error('client closed the stream'));
  };
  res.on('close', onClose);
  try {
    const channel = {
      emit: (n: Notification) => {
        stream?.send(n);
      },
      // A question turns this POST's response into an event stream lazily; the answer comes back on
      // a separate POST in the same session. Outside a session nothing could route it back.
      send: inSession && stream ? (q: Request) => void stream.send(q) : undefined,
      paramHeaders,
    };
    const outcome = await runner.request(msg, rev, channel, ctl);
    if (ctl.aborted && disconnectCancels) return; // 2026-07-28: nothing more for a cancelled request
    if (!outcome.response) {
      // Cancelled by notifications/cancelled: no response; the POST gets an empty event stream.
      const empty = stream ?? new SseStream(res, keepAliveMs);
      empty.start();
      return empty.end();
    }
    // A successful initialize mints a session where the era has them (2025-03-26..2025-11-25).
    if (outcome.session && !('error' in outcome.response)) {
      const id = session?.id ?? ctx.sessions.mint(runner);
      if (!stream?.isStarted) res.setHeader('Mcp-Session-Id', id);
    }
    if (stream?.isStarted) {
      stream.send(outcome.response, outcome.text);
      stream.end();
    } else {
      stream?.end();
      const code = 'error' in outcome.response ? outcome.response.error.code : undefined;
      sendJson(res, code === undefined ? 200 : httpStatus(code, outcome.rev), outcome.response, {
        text: outcome.text,
      });
    }
  } finally {
    res.off('close', onClose);
  }
}
