// A detector behind a URL (`guardrails.detectors.NAME.url`) that speaks the shape of Presidio's analyzer
// API (POST /analyze: `{text, language, entities?, score_threshold?}` answered with
// `[{entity_type, start, end, score}]`), so a person can point it at Presidio, or at anything (LLM Guard
// behind a small adapter) that answers the same way. Bounded like every outside call: a timeout, a reply
// read up to a size, a number of requests in flight; a redirect is refused (the text goes only where the
// person said). Whatever goes wrong is DetectorUnavailable, and the rule's failure mode decides
// (screen.ts). The text is never logged: only why the analyzer could not answer.
import type { ExternalDetector } from '../config/guardrails';
import { readBounded } from '../kit/bounded';
import { type Detector, DetectorUnavailable, type Hit } from './detector';

/** The analyzer's reply is findings, not a document: past this it is not one. */
const MAX_REPLY_BYTES = 1024 * 1024;
/** Requests one analyzer is sent at once; one more is not waited for but unavailable. */
const MAX_IN_FLIGHT = 16;

interface AnalyzerResult {
  entity_type: string;
  start: number;
  end: number;
  score?: number;
}

function isResult(v: unknown): v is AnalyzerResult {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.entity_type === 'string' &&
    Number.isInteger(r.start) &&
    Number.isInteger(r.end) &&
    (r.score === undefined || typeof r.score === 'number')
  );
}

/** Presidio counts characters as Python does, by code point; a JS string's offsets are UTF-16 units. The
 *  map from one to the other, where the text has a character past the BMP (else the identity). */
function unitsOf(text: string): ((cp: number) => number) | undefined {
  if (!/[\uD800-\uDBFF]/.test(text)) return undefined;
  const at: number[] = [];
  for (let i = 0; i < text.length; i++) {
    at.push(i);
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) i++;
  }
  at.push(text.length);
  return (cp) => at[Math.min(cp, at.length - 1)]!;
}

export function externalDetector(name: string, def: ExternalDetector): Detector {
  let inFlight = 0;
  return {
    name,
    async find(text, signal) {
      if (inFlight >= MAX_IN_FLIGHT) throw new DetectorUnavailable(`${MAX_IN_FLIGHT} requests were already in flight`);
      inFlight++;
      const timeout = AbortSignal.timeout(def.timeoutMs);
      const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
      try {
        const res = await fetch(def.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({
            text,
            language: def.language,
            ...(def.entities ? { entities: def.entities } : {}),
            ...(def.threshold !== undefined ? { score_threshold: def.threshold } : {}),
          }),
          redirect: 'error',
          signal: both,
        });
        if (!res.ok) {
          await res.body?.cancel();
          throw new DetectorUnavailable(`it answered HTTP ${res.status}`);
        }
        const body = await readBounded(
          res,
          MAX_REPLY_BYTES,
          () => new DetectorUnavailable(`its reply was over ${MAX_REPLY_BYTES} bytes`),
        );
        return hitsOf(body, text, def);
      } catch (e) {
        if (e instanceof DetectorUnavailable) throw e;
        if (timeout.aborted) throw new DetectorUnavailable(`it did not answer within ${def.timeoutMs} ms`);
        if (signal?.aborted) throw e;
        throw new DetectorUnavailable(`it could not be reached (${(e as Error).message})`);
      } finally {
        inFlight--;
      }
    },
  };
}

function hitsOf(body: string, text: string, def: ExternalDetector): Hit[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new DetectorUnavailable('its reply was not JSON');
  }
  if (!Array.isArray(parsed) || !parsed.every(isResult))
    throw new DetectorUnavailable('its reply was not a list of {entity_type, start, end, score}');
  const units = unitsOf(text);
  const hits: Hit[] = [];
  for (const r of parsed) {
    if (def.threshold !== undefined && (r.score ?? 1) < def.threshold) continue;
    const start = units ? units(r.start) : r.start;
    const end = units ? units(r.end) : r.end;
    if (start < 0 || end > text.length || end <= start)
      throw new DetectorUnavailable('its reply named a range outside the text');
    // The kind is the analyzer's word: kept to what a marker and a record may show.
    hits.push({
      start,
      end,
      kind:
        r.entity_type
          .toLowerCase()
          .replace(/[^a-z0-9_-]/g, '')
          .slice(0, 64) || 'entity',
    });
  }
  return hits;
}
