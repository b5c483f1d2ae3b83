// The `secrets` detector: secretlint's recommended rules (@secretlint/secretlint-rule-preset-recommend,
// MIT, maintained by the secretlint project: cloud keys, tokens of GitHub, GitLab, Slack, npm, OpenAI,
// Anthropic, Stripe and others, private keys, connection strings and basic-auth URLs), and one rule of
// mcpx's own for what they leave out: a high-entropy value assigned to a name that says it is secret
// (`api_key = "…"`), the approach of gitleaks' generic-api-key rule (an entropy above 3.5 bits a
// character). A finding is a range and a kind (`aws`, `github`, `entropy`); secretlint's messages, which
// quote the secret, are never kept.
/*!
 * secretlint (@secretlint/core, @secretlint/profiler, @secretlint/secretlint-rule-preset-recommend), bundled here:
 *
 * Copyright (c) 2020 azu
 *
 * Permission is hereby granted, free of charge, to any person obtaining a copy
 * of this software and associated documentation files (the "Software"), to deal
 * in the Software without restriction, including without limitation the rights
 * to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
 * copies of the Software, and to permit persons to whom the Software is
 * furnished to do so, subject to the following conditions:
 *
 * The above copyright notice and this permission notice shall be included in all
 * copies or substantial portions of the Software.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 * IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 * FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 * AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 * LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 * OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
 * SOFTWARE.
 */
import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { rules } from '@secretlint/secretlint-rule-preset-recommend';
import type { Detector, Hit } from '../detector';

const PREFIX = '@secretlint/secretlint-rule-';
/** A comment directive in the text (`secretlint-disable`) would let the text turn its own scan off: the
 *  text is an upstream's, so the rule that reads them is left out. */
const LEFT_OUT = new Set([`${PREFIX}filter-comments`]);
/** Options per rule: an AWS access key id alone is reported too (the rule's default reports only a secret
 *  access key beside its name). */
const OPTIONS: Readonly<Record<string, Record<string, unknown>>> = { [`${PREFIX}aws`]: { enableIDScanRule: true } };

const CONFIG: Parameters<typeof lintSource>[0]['options']['config'] = {
  rules: rules
    .filter((r) => !LEFT_OUT.has(r.meta.id))
    .map((r) => ({ id: r.meta.id, rule: r, ...(OPTIONS[r.meta.id] ? { options: OPTIONS[r.meta.id] } : {}) })),
};

/** The characters a token is made of: a range is widened to the end of its token, so a rule that reports
 *  a shorter range than its secret (or one split oddly) never leaves part of it behind. */
const TOKEN = /[A-Za-z0-9+/=_\-.~]/;

function widened(text: string, start: number, end: number): [number, number] {
  let e = Math.max(end, start);
  while (e < text.length && TOKEN.test(text[e]!)) e++;
  // A sentence's full stop is not the token's.
  while (e > end && (text[e - 1] === '.' || text[e - 1] === '-')) e--;
  return [start, e];
}

/** A name that says its value is secret, an assignment, and a value of token characters (16 to 256). The
 *  quantifiers are bounded and none nests: linear in the text. */
const ASSIGNED =
  /(?:api[_-]?key|apikey|secret|token|passw(?:or)?d|pwd|credential|private[_-]?key|access[_-]?key|auth)[A-Za-z0-9_.-]{0,24}["']?[^\S\n]{0,3}(?::=|=>|[:=])[^\S\n]{0,3}["'`]?([A-Za-z0-9+/_\-.~=]{16,256})/gi;
/** Bits a character below which a value is a word, a path or a placeholder (gitleaks' generic-api-key). */
const ENTROPY = 3.5;

/** Shannon entropy of a string, in bits a character. */
export function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

function assigned(text: string): Hit[] {
  const out: Hit[] = [];
  for (const m of text.matchAll(ASSIGNED)) {
    const value = m[1]!;
    // A value of letters only is a word or an identifier; one without a letter is a number.
    if (!/[0-9]/.test(value) || !/[A-Za-z]/.test(value) || entropy(value) < ENTROPY) continue;
    const start = m.index! + m[0].length - value.length;
    out.push({ start, end: start + value.length, kind: 'entropy' });
  }
  return out;
}

let quiet = false;

export const secrets: Detector = {
  name: 'secrets',
  async find(text) {
    if (!quiet) {
      // secretlint's profiler marks every rule of every scan and keeps the marks: off, or it grows without
      // bound.
      secretLintProfiler.setEnabled(false);
      quiet = true;
    }
    const found = await lintSource({
      source: { content: text, filePath: 'result.txt', ext: '.txt', contentType: 'text' },
      options: { config: CONFIG, locale: 'en', maskSecrets: true, noPhysicFilePath: true },
    });
    const hits: Hit[] = found.messages.map((m) => {
      const [start, end] = widened(text, m.range[0], m.range[1]);
      return { start, end, kind: m.ruleId.startsWith(PREFIX) ? m.ruleId.slice(PREFIX.length) : m.ruleId };
    });
    return [...hits, ...assigned(text)];
  },
};
