// wink-porter2-stemmer ships no types: its CommonJS export is the stemmer (src/wink-porter2-stemmer.js).
declare module 'wink-porter2-stemmer' {
  /** The Porter2 stem of an English word (lower-cased first). */
  export default function stem(word: string): string;
}
