// The redirect comes back here: a listener on 127.0.0.1 (RFC 8252 §7.3, a loopback redirect URI), up
// for one authorization only, closed when it has its answer, is aborted, or times out.
import { createServer } from 'node:http';
import { AuthError } from './errors';

/** Where the browser's answer arrives: a listener on 127.0.0.1, for one sign-in. */
export interface RedirectReceiver {
  redirectUri: string;
  /** The URL the browser came back to (its query holds the authorization response). */
  result: Promise<URL>;
  close(): void;
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif;margin:3em"><h1>${title}</h1><p>${text}</p>`;

export async function listenForRedirect(
  port: number,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<RedirectReceiver> {
  let settle!: { ok: (u: URL) => void; fail: (e: Error) => void };
  const result = new Promise<URL>((ok, fail) => (settle = { ok, fail }));
  result.catch(() => undefined);
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    const failed = url.searchParams.has('error');
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(
      failed
        ? PAGE('Sign-in did not complete', 'The authorization server refused. You can close this page.')
        : PAGE('Signed in', 'mcpx has the answer. You can close this page and return to your editor or terminal.'),
    );
    done();
    settle.ok(new URL(url.pathname + url.search, `http://127.0.0.1:${port}`));
  });
  const timer = setTimeout(() => {
    done();
    settle.fail(new AuthError(`no answer from the browser within ${Math.round(timeoutMs / 1000)} s`));
  }, timeoutMs);
  const onAbort = () => {
    done();
    settle.fail(new AuthError('the sign-in was cancelled'));
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  function done() {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    server.close();
    server.closeAllConnections();
  }
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => ok());
  });
  const addr = server.address();
  port = typeof addr === 'object' && addr ? addr.port : port;
  return { redirectUri: `http://127.0.0.1:${port}/callback`, result, close: done };
}
