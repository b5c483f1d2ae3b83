// A detector a person writes as a pattern (`guardrails.detectors.NAME.pattern`): RE2's syntax, matched by
// re2js, a port of RE2 — in time linear in the text whatever the pattern, since the text is an
// upstream's to choose and a backtracking engine can be made to take years over a short one (docs/
// security.md "Hostile shapes"). The config refuses what RE2 does not accept (config/guardrails.ts).
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
