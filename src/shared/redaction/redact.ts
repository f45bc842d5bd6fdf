/**
 * Redaction of a text: every detector's matches found over the whole text, overlaps settled
 * (the earliest match wins, then the longest), each replaced by `[redacted:<detector>]`. Pure.
 */
import { DETECTORS, type Span } from "./detectors";
import type { RedactionDetector } from "./settings";

/**
 * The most characters one pass of the detectors reads: the five together take 2 to 3 µs per
 * character (docs/redaction.md), so a pass costs under a second. It equals `MAX_INPUT_CHARS`, the
 * bound of a message; a tool output is cut to it at the latest (../../sessions/object/redaction.ts);
 * a longer text (an answer) is redacted in pieces cut at a line break.
 */
export const MAX_REDACTION_INPUT_CHARS = 200_000;

export function redactionMark(detector: RedactionDetector): string {
  return `[redacted:${detector}]`;
}

/** `text` with every match of `detectors` replaced; the same string when none matched. */
export function redactText(text: string, detectors: readonly RedactionDetector[]): string {
  if (detectors.length === 0 || text.length === 0) return text;
  if (text.length <= MAX_REDACTION_INPUT_CHARS) return redactPiece(text, detectors);
  let out = "";
  for (let at = 0; at < text.length;) {
    const limit = Math.min(text.length, at + MAX_REDACTION_INPUT_CHARS);
    const newline = limit === text.length ? -1 : text.lastIndexOf("\n", limit - 1);
    const end = newline > at ? newline + 1 : limit;
    out += redactPiece(text.slice(at, end), detectors);
    at = end;
  }
  return out;
}

function redactPiece(text: string, detectors: readonly RedactionDetector[]): string {
  const found: (Span & { detector: RedactionDetector })[] = [];
  for (const name of detectors) {
    const detector = DETECTORS[name];
    if (detector.needs && !text.includes(detector.needs)) continue;
    const matcher = detector.pattern.matcher(text);
    // A rejected candidate is skipped whole: looking again inside it could cost time quadratic in a long run of digits.
    while (matcher.find()) {
      const span = detector.accept(text, matcher.start(), matcher.end());
      if (span && span.end > span.start) found.push({ ...span, detector: name });
    }
  }
  if (found.length === 0) return text;
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  let out = "";
  let at = 0;
  for (const span of found) {
    if (span.start < at) continue;
    out += text.slice(at, span.start) + redactionMark(span.detector);
    at = span.end;
  }
  return out + text.slice(at);
}
