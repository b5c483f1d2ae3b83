// Text a client or an upstream chose, made safe to print: in a terminal (the daemon's log, what the command
// line prints), a log file or the editor's output channels. What an upstream names or writes — a tool name,
// a URI, a description, a stderr line, an error message — and what a client declares — its name — may
// carry ANSI escape sequences (which a terminal obeys: colours, concealed text, cursor moves that rewrite
// the lines above, a new title), carriage returns and newlines (a forged line of its own), or
// bidirectional overrides (text that reads other than it is). Each such character is written as a visible
// \u{…} escape; everything else is left as it is (docs/security.md "Hostile shapes"). The one place that
// decides it: the gateway's log, the editor's views and every printer of the command line use it.

/** C0 controls but tab, DEL, C1 controls (0x9B is a one-byte CSI), the line and paragraph separators, and
 *  the bidirectional marks, embeddings, overrides and isolates. */
function unprintable(c: number): boolean {
  if (c < 0x20) return c !== 0x09;
  if (c < 0x7f) return false;
  if (c <= 0x9f) return true;
  return c === 0x061c || c === 0x200e || c === 0x200f || (c >= 0x2028 && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

function escaped(text: string, as: (c: number) => string, keepBelow = 0): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < keepBelow || !unprintable(c)) continue;
    out += `${text.slice(from, i)}${as(c)}`;
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** One line: every character a terminal would act on as a visible \u{…} escape, newlines included. */
export function printable(text: string): string {
  return escaped(text, (c) => `\\u{${c.toString(16)}}`);
}

/** Several lines (a diff, a result's text): each line printable, the newlines between them kept. */
export function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n');
}

/** JSON as it is printed: JSON.stringify escapes C0 controls inside strings (those left are its own
 *  indentation), but writes DEL, C1 controls, the separators and the bidirectional overrides as they are;
 *  here they are \uXXXX escapes too (the same JSON value). */
export function printableJson(value: unknown, indent?: number): string {
  return escaped(JSON.stringify(value, null, indent) ?? 'null', (c) => `\\u${c.toString(16).padStart(4, '0')}`, 0x20);
}
