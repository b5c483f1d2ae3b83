// What a person reads to review a held definition (docs/gateway.md "Pins"): each definition as stable
// pretty JSON — keys sorted, two-space indent — with its description's text wrapped into an array of
// lines, so that a sentence added to the end of a long description is a line of its own in a diff; and a
// unified diff of the two (kit/diff.ts).
import { canonicalJson } from '../../kit/canonical';
import type { JsonObject } from '../../protocol/jsonrpc';

/** Columns a description line is wrapped at. */
const WRAP = 72;

/** `text` wrapped at WRAP columns on spaces, its own line breaks kept (a word longer than WRAP stays whole). */
function wrapText(text: string): string[] {
  const out: string[] = [];
  for (const para of text.split('\n')) {
    let line = '';
    for (const word of para.split(' ')) {
      if (line && line.length + 1 + word.length > WRAP) {
        out.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    out.push(line);
  }
  return out;
}

/** A definition as the review shows it: stable pretty JSON, its description as wrapped lines. */
export function reviewForm(def: JsonObject | undefined): string {
  if (!def) return '';
  const sorted = JSON.parse(canonicalJson(def)) as JsonObject;
  if (typeof sorted.description === 'string') sorted.description = wrapText(sorted.description);
  return `${JSON.stringify(sorted, null, 2)}\n`;
}
