// Text an upstream chose, made safe to print on one line: in a terminal (the daemon's log), a log file
// or the editor's output channels. What an upstream names or writes — a tool name, a URI, a stderr line,
// an error message — may carry ANSI escape sequences (which a terminal obeys: colours, cursor moves, a
// rewritten title), carriage returns and newlines (a forged log line of its own), or bidirectional
// overrides (text that reads other than it is). Each such character is written as a visible \u{…}
// escape; everything else is left as it is (docs/security.md "Hostile shapes").

/** C0 controls but tab, DEL, C1 controls, the line and paragraph separators, and the bidirectional
 *  marks, embeddings, overrides and isolates. */
function unprintable(c: number): boolean {
  if (c < 0x20) return c !== 0x09;
  if (c < 0x7f) return false;
  if (c <= 0x9f) return true;
  return c === 0x061c || c === 0x200e || c === 0x200f || (c >= 0x2028 && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

export function printable(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!unprintable(c)) continue;
    out += `${text.slice(from, i)}\\u{${c.toString(16)}}`;
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}
