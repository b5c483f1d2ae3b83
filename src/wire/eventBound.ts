// One SSE event's size, counted across the chunks of a stream (transport.maxLineBytes, docs/security.md
// "Bounds"): both readers of SSE (the upstream's Streamable HTTP and HTTP+SSE transports, the stdio
// shim) stop a stream whose event grows past the bound before the event parser buffers it whole.

/** A counter fed each text chunk in order: false once one event (the characters up to a blank line)
 *  is past `max`. */
export function eventBound(max: number): (chunk: string) => boolean {
  let event = 0;
  let line = 0;
  let lastCr = false;
  return (chunk) => {
    let at = 0;
    for (;;) {
      const nl = chunk.indexOf('\n', at);
      const end = nl === -1 ? chunk.length : nl;
      line += end - at;
      event += end - at;
      if (event > max) return false;
      if (end > at) lastCr = chunk.charCodeAt(end - 1) === 0x0d;
      if (nl === -1) return true;
      // A blank line ("\n" or "\r\n" alone) ends the event.
      if (line === 0 || (line === 1 && lastCr)) event = 0;
      line = 0;
      lastCr = false;
      at = nl + 1;
    }
  };
}
