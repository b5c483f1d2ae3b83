// The `injection` detector: text an upstream wrote to steer the model rather than inform it (OWASP Top 10
// for LLM Applications 2025, LLM01 "Prompt Injection": direct and indirect injection, and instructions
// hidden from the person). Four kinds of evidence:
// - characters a person cannot see: Unicode tag characters (U+E0000–E007F, which spell ASCII invisibly),
//   the variation selectors supplement (U+E0100–E01EF, which can carry bytes), zero-width and invisible
//   format characters, and the bidirectional controls of "Trojan Source" (CVE-2021-42574);
// - phrasings that override what the model was told ("ignore all previous instructions");
// - the role and turn markers of chat templates (ChatML's <|im_start|>, Llama's [INST] and <<SYS>>,
//   Llama 3's header ids, Gemma's turns, the "Human:/Assistant:" turns);
// - markup that hides text from a reader: HTML comments, an element styled or marked hidden (markup.ts).
// A phrase list finds the common phrasings, not every one: a classifier behind an external detector
// (LLM Guard, docs/gateway.md "Guardrails") finds more. Every expression is linear in the text.
import { type Detector, type Hit, hitsOf } from '../detector';
import { hiddenMarkup } from './markup';

/** Runs of characters that render as nothing. */
const INVISIBLE: ReadonlyArray<readonly [string, RegExp]> = [
  ['unicode-tags', /[\u{E0000}-\u{E007F}]+/gu],
  ['variation-selectors', /[\u{E0100}-\u{E01EF}]+/gu],
  ['bidi', /[\u202A-\u202E\u2066-\u2069]+/g],
  // Word joiner, invisible operators, Mongolian vowel separator, a byte order mark inside a text, soft
  // hyphen runs, the Hangul fillers: none has a use between the letters of a tool's answer.
  ['zero-width', /[\u200B\u2060-\u2064\u180E\uFEFF\u115F\u1160\u3164\uFFA0]+|\u00AD{2,}/g],
];

/** A zero-width joiner or non-joiner has its uses — an emoji sequence, Persian and Indic words — so it is
 *  flagged where it has none: two or more together, or between two ASCII characters ("ad\u200Dmin"). */
const JOINERS = /[\u200C\u200D]{2,}|(?<=[\x21-\x7E])[\u200C\u200D](?=[\x21-\x7E])/g;

/** Phrasings that tell the model to drop what it was told, or to keep something from the person. */
const OVERRIDE =
  /\b(?:(?:ignore|disregard|forget|override|bypass|skip)\s+(?:all\s+|any\s+|the\s+|your\s+|of\s+)*(?:previous|prior|above|earlier|preceding|original|system|existing|former)\s+(?:instructions?|prompts?|directions?|directives?|rules?|guidelines?|context|messages?)|(?:new|updated|real|actual)\s+(?:system\s+)?instructions?\s*:|you\s+are\s+now\s+(?:in\s+)?(?:dan|developer\s+mode|jailbroken|unrestricted|an?\s+unfiltered)|(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention\s+(?:this\s+)?to|reveal\s+(?:this\s+)?to|show)\s+the\s+user|system\s+(?:override|prompt\s+override))/gi;

/** The role and turn markers of chat templates, and a line that opens a new turn as a role. */
const ROLE =
  /<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|begin_of_text|end_of_text|start_header_id|end_header_id|eot_id)\|>|\[\/?INST\]|<<\/?SYS>>|<\/?(?:start_of_turn|end_of_turn)>|(?:^|\n)[^\S\n]{0,3}(?:#{1,4}[^\S\n]{0,3}(?:system|assistant|user|human|instructions?|response)|human|assistant)[^\S\n]{0,3}:/gi;

export const injection: Detector = {
  name: 'injection',
  find(text) {
    const hits: Hit[] = [];
    // Most texts are ASCII: the invisible characters are looked for only where a character is not.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is for anything past ASCII
    if (/[^\x00-\x7F]/.test(text)) {
      for (const [kind, re] of INVISIBLE) hits.push(...hitsOf(text, re, kind));
      hits.push(...hitsOf(text, JOINERS, 'zero-width'));
    }
    hits.push(...hitsOf(text, OVERRIDE, 'override'));
    // A marker at a line's start is found with the line break before it: the break stays.
    for (const h of hitsOf(text, ROLE, 'role-marker'))
      hits.push(text[h.start] === '\n' ? { ...h, start: h.start + 1 } : h);
    hits.push(...hiddenMarkup(text));
    return hits;
  },
};
