// Markup that hides text from a person who reads the rendered page while a model reads every character:
// an HTML comment (to its end, or to the end of the text where it never closes — as a browser reads it),
// an element marked or styled hidden (the `hidden` attribute, `type=hidden`, display:none,
// visibility:hidden, a zero font size or opacity, the hiding classes of common CSS frameworks) with what
// it holds, and Markdown's comment idiom (`[//]: # (…)`, a link definition nothing uses). Found with
// indexOf and expressions that stop at the next `<` or line break: linear in the text.
import type { Hit } from '../detector';

/** An opening tag: its name and its attributes, up to the next `>` (never past a `<`). */
const OPEN = /<([A-Za-z][A-Za-z0-9-]{0,30})\b([^<>]{0,2000})>/g;

/** Attributes that hide an element. */
const HIDING =
  /(?:^|\s)hidden(?:\s|=|\/|$)|type\s*=\s*["']?hidden|display\s*:\s*none|visibility\s*:\s*hidden|(?:font-size|opacity|max-height|height)\s*:\s*0(?:\.0+)?(?:px|em|rem|pt|%)?\s*(?:[;"'!]|$)|class\s*=\s*["'][^"']{0,500}?\b(?:hidden|d-none|sr-only|visually-hidden|invisible)\b/i;

/** Markdown's comment idiom: a link definition whose target is `#` or `<>`, on a line of its own. */
const MD_COMMENT = /^[^\S\n]{0,3}\[[^\]\n]{0,60}\]:[^\S\n]{0,3}(?:#|<>)[^\S\n]{0,3}[("'][^\n]{0,4000}$/gm;

function comments(text: string): Hit[] {
  const out: Hit[] = [];
  for (let at = text.indexOf('<!--'); at >= 0; ) {
    const close = text.indexOf('-->', at + 4);
    // Unclosed, it hides the rest (and no later comment closes either).
    const end = close < 0 ? text.length : close + 3;
    out.push({ start: at, end, kind: 'hidden-markup' });
    at = close < 0 ? -1 : text.indexOf('<!--', end);
  }
  return out;
}

function hiddenElements(text: string): Hit[] {
  const out: Hit[] = [];
  let lower: string | undefined;
  let coveredTo = 0;
  // Per tag name, where a search for its closing tag found none: a later one finds none either.
  const unclosed = new Map<string, number>();
  for (const m of text.matchAll(OPEN)) {
    if (m.index! < coveredTo || !HIDING.test(m[2]!)) continue;
    const name = m[1]!.toLowerCase();
    const openEnd = m.index! + m[0].length;
    // The element ends at its closing tag (the first: a nested one of the same name hides no less); one
    // without (a void element, `<input type=hidden …>`) is its tag.
    lower ??= text.toLowerCase();
    const selfClosed = m[2]!.endsWith('/');
    const none = unclosed.get(name) ?? Number.POSITIVE_INFINITY;
    const close = selfClosed || openEnd >= none ? -1 : lower.indexOf(`</${name}`, openEnd);
    if (!selfClosed && close < 0 && openEnd < none) unclosed.set(name, openEnd);
    let end = openEnd;
    if (close >= 0) {
      const gt = lower.indexOf('>', close);
      end = gt < 0 ? text.length : gt + 1;
    }
    out.push({ start: m.index!, end, kind: 'hidden-markup' });
    coveredTo = end;
  }
  return out;
}

export function hiddenMarkup(text: string): Hit[] {
  const hits: Hit[] = [];
  if (text.includes('<')) hits.push(...comments(text), ...hiddenElements(text));
  if (text.includes(']:'))
    for (const m of text.matchAll(MD_COMMENT))
      hits.push({ start: m.index!, end: m.index! + m[0].length, kind: 'hidden-markup' });
  return hits;
}
