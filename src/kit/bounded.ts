// A fetch response's body read up to a bound: past it the reading stops, the body is cancelled, and the
// caller's error is thrown — a registry's answer, an analyzer's findings are data, not a stream to follow.

/** `res`'s body as UTF-8 text, or `tooLarge()` thrown once more than `max` bytes have come. */
export async function readBounded(res: Response, max: number, tooLarge: () => Error): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.byteLength;
    if (n > max) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
