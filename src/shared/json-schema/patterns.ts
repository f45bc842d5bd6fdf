/**
 * Regular expressions that tenants put in JSON Schemas (`pattern`, `patternProperties`), run on
 * RE2 (re2js) so that matching takes time linear in the input: a backtracking engine can take
 * exponential time on `^(a+)+$`, and every tenant whose sessions share the isolate would wait.
 *
 * A pattern is first checked as the ECMA-262 regex JSON Schema says it is (never run natively),
 * then refused when RE2 cannot express it (backreferences, lookaround) or when it is too large.
 */
import { RE2JS } from "re2js";

/** Longer patterns are prose, not validation; it also bounds the cost of the checks below. */
export const MAX_PATTERN_CHARS = 1_000;
/**
 * An upper bound of the RE2 program a pattern compiles to (see `estimatePatternSize`), summed
 * over all patterns of one schema. It bounds both compiling (about 10 ms per 1,000) and the work
 * per character matched, whatever the counted repetitions (`\p{L}{1000}` alone is 1,000).
 */
export const MAX_SCHEMA_PATTERN_SIZE = 2_000;
/**
 * The same bound over every schema of one request (a session's tools), checked by estimate
 * before anything is compiled: compiling costs about 8 µs per step, so a request stays within
 * a few tens of milliseconds of the gateway's time however many tools it declares.
 */
export const MAX_REQUEST_PATTERN_SIZE = 4_000;
/** Strings longer than this are not matched against a pattern or a format; they fail the check. */
export const MAX_PATTERN_SUBJECT_CHARS = 10_000;
/**
 * Matching work allowed for one validation: the sum of (string length × pattern size) over every
 * match. RE2 runs about 20 ns per unit at worst, so one validation spends well under a second.
 */
export const MAX_PATTERN_WORK = 20_000_000;
/** Compiled patterns kept per isolate, most recently used last. */
const PATTERN_CACHE_ENTRIES = 256;

export interface CompiledPattern {
  source: string;
  /** The estimated program size: the cost of one character matched. */
  size: number;
  test(subject: string): boolean;
}

export type PatternResult = { ok: true; pattern: CompiledPattern } | { ok: false; problem: string };

const cache = new Map<string, PatternResult>();

/** Compiles `source` for RE2, or says in a sentence a tenant can act on why it cannot be used. */
export function compilePattern(source: string): PatternResult {
  const cached = cache.get(source);
  if (cached) {
    cache.delete(source);
    cache.set(source, cached);
    return cached;
  }
  const result = compile(source);
  cache.set(source, result);
  if (cache.size > PATTERN_CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  return result;
}

function compile(source: string): PatternResult {
  if (source.length > MAX_PATTERN_CHARS) return { ok: false, problem: `Must be at most ${MAX_PATTERN_CHARS} characters.` };
  try {
    // Parsed only, never run: the native engine is the one that can take exponential time.
    new RegExp(source, "u");
  } catch {
    return { ok: false, problem: "Not a valid regular expression (ECMA-262, with the u flag)." };
  }
  const unsupported = unsupportedConstruct(source);
  if (unsupported) return { ok: false, problem: `${unsupported} not supported: patterns run on a linear-time engine (RE2).` };
  const size = estimatePatternSize(source);
  if (size > MAX_SCHEMA_PATTERN_SIZE) return { ok: false, problem: tooLarge() };
  let re2: RE2JS;
  try {
    re2 = RE2JS.compile(RE2JS.translateRegExp(source));
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return { ok: false, problem: `Not supported by the linear-time engine (RE2): ${detail.slice(0, 200)}.` };
  }
  return { ok: true, pattern: { source, size, test: (subject) => re2.test(subject) } };
}

export function tooLarge(): string {
  return `Too large: the patterns of one schema may expand to at most ${MAX_SCHEMA_PATTERN_SIZE} steps (counted repetitions such as {1000} count in full).`;
}

/**
 * The constructs RE2 cannot run in linear time, found outside character classes. Checked here,
 * not left to the translation: it would read `\k<name>` as the letters "k<name>".
 */
export function unsupportedConstruct(source: string): string | null {
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (ch === "\\") {
      const next = source[i + 1] ?? "";
      if (next === "k" || (next >= "1" && next <= "9")) return "Backreferences are";
      i++;
    } else if (ch === "[") {
      i = endOfClass(source, i);
    } else if (ch === "(" && source[i + 1] === "?") {
      const rest = source.slice(i + 2, i + 4);
      if (rest.startsWith("=") || rest.startsWith("!") || rest === "<=" || rest === "<!") return "Lookahead and lookbehind are";
    }
  }
  return null;
}

/**
 * An upper bound of the instructions RE2 compiles `source` to: each atom counts one, a group
 * the sum of its alternatives, and a counted repetition multiplies what it repeats (an optional
 * copy counts two). Computed before compiling, so a pattern too large to compile quickly is
 * refused without being compiled.
 */
export function estimatePatternSize(source: string): number {
  const frames: { done: number; alt: number; last: number }[] = [{ done: 0, alt: 0, last: 0 }];
  const top = () => frames[frames.length - 1]!;
  const atom = (size: number) => {
    const frame = top();
    frame.alt = bounded(frame.alt + size);
    frame.last = size;
  };
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (ch === "\\") {
      i = endOfEscape(source, i);
      atom(1);
    } else if (ch === "[") {
      i = endOfClass(source, i);
      atom(1);
    } else if (ch === "(") {
      frames.push({ done: 0, alt: 0, last: 0 });
    } else if (ch === ")" && frames.length > 1) {
      const group = frames.pop()!;
      atom(bounded(group.done + group.alt + 1));
    } else if (ch === "|") {
      const frame = top();
      frame.done = bounded(frame.done + frame.alt + 1);
      frame.alt = 0;
      frame.last = 0;
    } else if (ch === "*" || ch === "+" || ch === "?") {
      top().alt = bounded(top().alt + 1);
    } else if (ch === "{" && /^\{\d+(,\d*)?\}/.test(source.slice(i, i + 40))) {
      const [text = "", min = "0", comma, max] = /^\{(\d+)(,)?(\d*)\}/.exec(source.slice(i, i + 40)) ?? [];
      const n = Number(min);
      const copies = comma === undefined ? n : max === "" ? n + 1 : n + 2 * Math.max(0, Number(max) - n);
      const frame = top();
      frame.alt = bounded(frame.alt + frame.last * (Math.max(copies, 1) - 1));
      frame.last = bounded(frame.last * Math.max(copies, 1));
      i += text.length - 1;
    } else {
      atom(1);
    }
  }
  const root = frames.reduce((sum, frame) => bounded(sum + frame.done + frame.alt), 0);
  return root;
}

/** Keeps the estimate a safe integer whatever the repetition counts. */
function bounded(n: number): number {
  return Math.min(n, Number.MAX_SAFE_INTEGER / 4);
}

/** The index of the last character of the escape that starts at `i`. */
function endOfEscape(source: string, i: number): number {
  const next = source[i + 1];
  if ((next === "p" || next === "P" || next === "u" || next === "x") && source[i + 2] === "{") {
    const close = source.indexOf("}", i + 3);
    return close === -1 ? source.length - 1 : close;
  }
  if (next === "u") return i + 5;
  if (next === "x") return i + 3;
  if (next === "c") return i + 2;
  return i + 1;
}

/** The index of the `]` that closes the class opened at `i` (ECMA-262: `[]` is an empty class). */
function endOfClass(source: string, i: number): number {
  for (let j = i + 1; j < source.length; j++) {
    if (source[j] === "\\") j++;
    else if (source[j] === "]") return j;
  }
  return source.length - 1;
}
