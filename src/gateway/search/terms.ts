// The terms tool search indexes and searches (docs/gateway.md "Tool search"): a text split into words,
// stop words dropped, each word stemmed by Porter2 (the English Snowball stemmer), so "relations",
// "related" and "relating" are one term and "directories" is "directory".
/*! wink-porter2-stemmer 2.0.1 (bundled): Copyright (C) 2017-19 GRAYPE Systems Private Limited, MIT licence. */
import porter2 from 'wink-porter2-stemmer';

/** Words that say nothing about which tool is meant ("which tool can I use to …"). */
const STOP = new Set(
  'a an and are as at be by can do does for from get how i in into is it its me my of on or please some that the their them this to tool tools use want what when where which with would you your'.split(
    ' ',
  ),
);

/** Words of a text: split on anything not a letter or digit, and between camelCase humps. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/** Longest word stemmed: past it a word is kept as it is (the stemmer's regular expressions run over
 *  the whole word; an upstream's 2,000-letter "word" is not worth it). */
const STEM_MAX = 40;

/** Stems already made: tools share most of their words, and Porter2 is a chain of regular expressions.
 *  Bounded: emptied when full. */
const STEMS = new Map<string, string>();
const STEMS_MAX = 50_000;

/** A word lower-cased and stemmed. */
export function stem(word: string): string {
  const w = word.toLowerCase();
  if (w.length > STEM_MAX || !/^[a-z]+$/.test(w)) return w;
  let s = STEMS.get(w);
  if (s === undefined) {
    if (STEMS.size >= STEMS_MAX) STEMS.clear();
    s = porter2(w);
    STEMS.set(w, s);
  }
  return s;
}

/** One word as indexed and searched: a stop word dropped, stemmed. */
export function term(word: string): string | null {
  return STOP.has(word.toLowerCase()) ? null : stem(word);
}

/** What some words of a query are, said in the words tools use: a web address is a URL, a file name
 *  with an extension a file, `#name` a channel, `@name` a user. */
const HINTS: ReadonlyArray<[RegExp, string]> = [
  [/\bhttps?:\/\/|\b[\w-]+(\.[\w-]+)*\.(com|org|net|io|dev|app|ai|co|edu|gov)\b/i, 'url'],
  [/\b[\w-]+\.(md|txt|json|ya?ml|toml|csv|ts|js|py|go|rs|java|html|css|log|pdf|png|jpe?g|svg)\b/i, 'file'],
  [/(^|\s)#[\w-]+/, 'channel'],
  [/(^|\s)@[\w-]+/, 'user'],
];

/** The words a query's addresses, file names and handles add (HINTS). */
export function hints(query: string): string[] {
  return HINTS.filter(([re]) => re.test(query)).map(([, word]) => word);
}
