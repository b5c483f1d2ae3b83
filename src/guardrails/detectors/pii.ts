// The `pii` detector: personal data a tool's answer should not hand a model unasked — email addresses,
// phone numbers, payment card numbers and IBANs. Each is a candidate found by a plain expression (every
// quantifier bounded, none nested: linear in the text) and then checked by what makes it one: an email's
// domain, a phone number's digits (8 to 15, ITU-T E.164), a card number's Luhn check digit and issuer
// range (ISO/IEC 7812), an IBAN's length for its country and its mod-97 check (ISO 13616, through
// ibantools, which carries the IBAN registry's table). What this leaves out: names, addresses and
// national numbers — an external analyzer (Presidio) finds those (docs/gateway.md "Guardrails").
import { getCountrySpecifications, isValidIBAN } from 'ibantools';
import { type Detector, type Hit, hitsOf } from '../detector';

const EMAIL = /[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{1,253}/g;

/** An email's domain: labels of letters, digits and hyphens, the last of letters (RFC 5321 4.1.2). */
function emailEnd(m: RegExpMatchArray): number | undefined {
  const at = m[0].indexOf('@');
  let domain = m[0].slice(at + 1);
  domain = domain.replace(/[.-]+$/, '');
  const labels = domain.split('.');
  if (labels.length < 2 || labels.some((l) => !l || l.startsWith('-'))) return undefined;
  if (!/^[A-Za-z]{2,24}$/.test(labels[labels.length - 1]!)) return undefined;
  return m.index! + at + 1 + domain.length;
}

function emails(text: string): Hit[] {
  const out: Hit[] = [];
  for (const m of text.matchAll(EMAIL)) {
    const end = emailEnd(m);
    if (end !== undefined) out.push({ start: m.index!, end, kind: 'email' });
  }
  return out;
}

/** An international number (+, a country code, digits with single separators, an area code in
 *  parentheses), or a national one written in the North American groups (415) 555-0132. */
const PHONE_INTL = /\+[1-9]\d{0,2}(?:[ .-]?\(\d{1,4}\))?(?:[ .-]?\d){6,14}/g;
const PHONE_NANP = /\(?\b\d{3}\)?[ .-]\d{3}[ .-]\d{4}\b/g;

const digitsOf = (s: string) => s.replace(/\D/g, '');
/** Not part of a longer token: no digit after it, no letter or digit before it. */
const endsClean = (text: string) => (m: RegExpMatchArray) =>
  !/\d/.test(text[m.index! + m[0].length] ?? '') && !/[A-Za-z0-9]/.test(text[m.index! - 1] ?? '');

function phones(text: string): Hit[] {
  const clean = endsClean(text);
  return [
    ...hitsOf(text, PHONE_INTL, 'phone', (m) => clean(m) && digitsOf(m[0]).length >= 8 && digitsOf(m[0]).length <= 15),
    ...hitsOf(text, PHONE_NANP, 'phone', clean),
  ];
}

/** 13 to 19 digits, single spaces or hyphens between them allowed. */
const CARD = /\b(?:\d[ -]?){12,18}\d\b/g;

/** The Luhn check (ISO/IEC 7812-1 Annex B). */
export function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** How card numbers are printed when they are grouped: 4-4-4-4 and its 15- and 19-digit kin, and the
 *  4-6-5 and 4-6-4 of American Express and Diners Club. A run grouped otherwise (the digits of an IBAN,
 *  a phone number) is no card number. */
const CARD_GROUPS = new Set(['4-4-4-4', '4-4-4-3', '4-4-4-4-3', '4-6-5', '4-6-4']);

function cards(text: string): Hit[] {
  return hitsOf(text, CARD, 'card', (m) => {
    const d = digitsOf(m[0]);
    const groups = m[0].split(/[ -]/);
    if (groups.length > 1 && !CARD_GROUPS.has(groups.map((g) => g.length).join('-'))) return false;
    // Payment cards' major industry identifiers are 2 to 6 (ISO/IEC 7812-1); a run of one digit is none.
    return d.length >= 13 && d.length <= 19 && /^[2-6]/.test(d) && !/^(\d)\1+$/.test(d) && luhn(d);
  });
}

/** A country code, check digits, then letters and digits in groups of four or run together. */
const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}/g;
const SPECS = getCountrySpecifications();

function ibans(text: string): Hit[] {
  const out: Hit[] = [];
  for (const m of text.matchAll(IBAN)) {
    const chars = SPECS[m[0].slice(0, 2)]?.chars;
    if (!chars) continue;
    // The candidate runs on into what follows it; the IBAN is its country's length of characters.
    let n = 0;
    let i = 0;
    for (; i < m[0].length && n < chars; i++) if (m[0][i] !== ' ') n++;
    const after = text[m.index! + i];
    if (n < chars || (after !== undefined && /[A-Za-z0-9]/.test(after))) continue;
    if (isValidIBAN(m[0].slice(0, i).replace(/ /g, ''))) out.push({ start: m.index!, end: m.index! + i, kind: 'iban' });
  }
  return out;
}

export const pii: Detector = {
  name: 'pii',
  find: (text) => [...emails(text), ...phones(text), ...cards(text), ...ibans(text)],
};
