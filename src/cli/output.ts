// What the command line prints: a line on stdout, and text from clients and upstreams made safe for a
// terminal.

/** `s` on stdout, ending in one newline. */
export const out = (s: string): void => void process.stdout.write(s.endsWith('\n') ? s : `${s}\n`);

/** One line with nothing a terminal would act on (names, labels and messages come from clients and
 *  upstreams). */
export function printable(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
  return s.replace(/[\x00-\x1f\x7f-\x9f]+/g, ' ');
}
