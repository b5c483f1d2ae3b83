// A detector a person writes as a pattern (`guardrails.detectors.NAME.pattern`): RE2's syntax, matched by
// re2js, a port of RE2 — in time linear in the text whatever the pattern, since the text is an
// upstream's to choose and a backtracking engine can be made to take years over a short one (docs/
// security.md "Hostile shapes"). The config refuses what RE2 does not accept (config/guardrails.ts).
/*!
 * re2js, bundled here:
 *
 * MIT License
 *
 * Copyright (c) 2023 Oleksii Vasyliev
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
import { RE2JS } from 're2js';
import type { Detector, Hit } from '../detector';

export function patternDetector(name: string, pattern: string): Detector {
  const re = RE2JS.compile(pattern);
  return {
    name,
    find(text) {
      const hits: Hit[] = [];
      const m = re.matcher(text);
      while (m.find()) if (m.end() > m.start()) hits.push({ start: m.start(), end: m.end(), kind: name });
      return hits;
    },
  };
}
