/**
 * The platform's one JSON Schema validator (tool inputs; later MCP tools and structured output):
 * @cfworker/json-schema, with every regex a tenant's schema carries run on RE2 instead of the
 * native engine, and strings checked against a pattern or a format bounded in length.
 *
 * How: the validator builds `new RegExp(...)` from `pattern` and `patternProperties`, so neither
 * reaches it. Before each validation the schema is copied with every `pattern` (and `format`)
 * replaced by a format name of our own, registered for the duration of the synchronous call,
 * whose check runs RE2; and every `patternProperties` key by an exact list of the input's
 * property names that RE2 matched, which the native engine checks in linear time.
 *
 * The work of the rest is bounded twice: a schema the validator may apply too often to one value
 * node is refused (complexity.ts), and each validation counts its work (`WorkMeter`) and stops,
 * failing closed, at `MAX_VALIDATION_WORK`.
 */
import { format as formatTable, Validator } from "@cfworker/json-schema";
import {
  LITERAL_CHARS_PER_WORK,
  MAX_EXAMINED_ERRORS,
  MAX_VALIDATION_WORK,
  PATTERN_KEY_CHARS_PER_WORK,
  SCHEMA_APPLICATION_WORK,
  STRING_CHARS_PER_WORK,
} from "./work-limits";
import { complexityProblem } from "./complexity";
import { FORMATS } from "./formats";
import {
  type CompiledPattern,
  compilePattern,
  MAX_PATTERN_SUBJECT_CHARS,
  MAX_PATTERN_WORK,
  MAX_SCHEMA_PATTERN_SIZE,
  estimatePatternSize,
  tooLarge,
} from "./patterns";
import { isObject, mapSchema, type SchemaPath, setOwn, walkSchema } from "./schema-walk";
import { inPlaceBooleans, literalWork, patternKeyWork, propertyNames, WorkMeter } from "./work-meter";

export interface SchemaProblem {
  /** Keys from the schema's root to the bad keyword, e.g. ["properties", "code", "pattern"]. */
  path: SchemaPath;
  message: string;
}

export type JsonValidation =
  | { valid: true }
  /** `unusable`: the schema itself cannot be used; `errors`: what is wrong with the value. */
  | { valid: false; unusable: string | null; errors: string[] };

/** Reported errors beyond these are noise for the reader, a model or a person. */
export const MAX_REPORTED_ERRORS = 5;

const problemsBySchema = new WeakMap<object, SchemaProblem[]>();

/**
 * Every reason the schema cannot be used, found without running any pattern or validating
 * anything: checked when a schema is accepted (a 400 naming the field), when an MCP server's
 * tools are discovered, and again before each validation.
 */
export function checkSchema(schema: unknown): SchemaProblem[] {
  if (isObject(schema)) {
    const cached = problemsBySchema.get(schema);
    if (cached) return cached;
  }
  const problems: SchemaProblem[] = [];
  let total = 0;
  const check = (source: unknown, path: SchemaPath) => {
    if (typeof source !== "string") return problems.push({ path, message: "Must be a string." });
    const result = compilePattern(source);
    if (result.ok) total += result.pattern.size;
    else problems.push({ path, message: result.problem });
  };
  walkSchema(schema, (node, path) => {
    if (Object.hasOwn(node, "pattern")) check(node.pattern, [...path, "pattern"]);
    if (isObject(node.patternProperties))
      for (const key of Object.keys(node.patternProperties)) check(key, [...path, "patternProperties", key]);
  });
  if (total > MAX_SCHEMA_PATTERN_SIZE && problems.length === 0) problems.push({ path: [], message: tooLarge() });
  if (problems.length === 0) {
    const complex = complexityProblem(schema);
    if (complex) problems.push(complex);
  }
  if (isObject(schema)) problemsBySchema.set(schema, problems);
  return problems;
}

/**
 * The estimated size of all the patterns of `schema`, without compiling any: the cheap check a
 * caller makes over several schemas before `checkSchema` compiles them.
 */
export function estimateSchemaPatterns(schema: unknown): number {
  let total = 0;
  walkSchema(schema, (node) => {
    if (typeof node.pattern === "string") total += estimatePatternSize(node.pattern);
    if (isObject(node.patternProperties)) for (const key of Object.keys(node.patternProperties)) total += estimatePatternSize(key);
  });
  return total;
}

export function describeProblems(problems: readonly SchemaProblem[]): string {
  return problems.map((p) => `${p.path.length ? p.path.join("/") : "(root)"}: ${p.message}`).join("; ");
}

/**
 * Validates `value` against `schema` (JSON Schema 2020-12). Patterns run in time linear in the
 * value's size, and the whole validation within `MAX_VALIDATION_WORK`.
 */
export function validateJson(schema: Record<string, unknown>, value: unknown): JsonValidation {
  const problems = checkSchema(schema);
  if (problems.length > 0) return { valid: false, unusable: describeProblems(problems), errors: [] };

  const meter = new WorkMeter(MAX_VALIDATION_WORK);
  const run = new PatternRun(propertyNames(value), (units) => meter.charge(units));
  const prepared = mapSchema(schema, (node) => meter.meterSchema(run.rewrite(node))) as Record<string, unknown>;
  meter.keyWork = run.keyWork;
  let result: ReturnType<Validator["validate"]>;
  run.install();
  try {
    result = new Validator(prepared as never, "2020-12", false).validate(meter.meterValue(value));
  } catch (err) {
    // Failing closed, like a pattern check not made: the value is neither valid nor invalid.
    if (err === meter.exhausted) return { valid: false, unusable: null, errors: [workRefusal()] };
    // A dangling $ref and the like: the schema's fault, said in its first line.
    const message = err instanceof Error ? err.message : String(err);
    return { valid: false, unusable: message.split("\n")[0]!.slice(0, 300), errors: [] };
  } finally {
    run.uninstall();
  }
  const errors = run.refusals();
  if (result.valid && errors.length === 0) return { valid: true };
  // The validator reports each failing keyword chain; its leaves are the useful lines.
  const examined = result.errors.slice(0, MAX_EXAMINED_ERRORS);
  const leaves = examined.filter(
    (e) =>
      !examined.some(
        (other) =>
          other !== e && other.instanceLocation.startsWith(e.instanceLocation) && other.keywordLocation.startsWith(e.keywordLocation + "/"),
      ),
  );
  for (const e of (leaves.length ? leaves : examined).slice(0, MAX_REPORTED_ERRORS)) {
    errors.push(`${e.instanceLocation || "#"}: ${run.explain(e.error)}`);
  }
  return { valid: false, unusable: null, errors: errors.slice(0, MAX_REPORTED_ERRORS) };
}

export function workRefusal(): string {
  return `#: the input is too large to check against this schema (at most ${MAX_VALIDATION_WORK} steps of validation).`;
}

/** A name of our own in the validator's format table; a tenant's `format` never survives the rewrite. */
const MARKER_PREFIX = "__platform_pattern_";

interface Marker {
  name: string;
  pattern: CompiledPattern | null;
  format: string | null;
  check: ((value: string) => boolean) | undefined;
  failures: Set<"too_long" | "pattern" | "format">;
}

/** One validation's rewrite: its markers, its matching budget, and what it had to refuse. */
class PatternRun {
  readonly #names: Set<string>;
  readonly #markers: Marker[] = [];
  readonly #rewrittenKeys = new Map<string, string>();
  /**
   * Per property name of the input, the work its matches cost: for each name a pattern matched the
   * validator writes that pattern's key (all the names it matched) into a location string.
   */
  readonly keyWork = new Map<string, number>();
  #work = 0;
  #exhausted = false;
  #longNames = false;

  readonly #charge: (units: number) => void;

  constructor(names: Set<string>, charge: (units: number) => void) {
    this.#names = names;
    this.#charge = charge;
  }

  rewrite(node: Record<string, unknown>): Record<string, unknown> {
    const pattern = typeof node.pattern === "string" ? this.#compiled(node.pattern) : null;
    const format = typeof node.format === "string" ? node.format : null;
    // Unknown formats are annotations only; known ones are checked by our table, never by name.
    const check = format === null ? undefined : FORMATS.get(format);
    delete node.pattern;
    delete node.format;
    // minLength and maxLength count a string's characters: a marker lets the work be charged.
    const measured = node.minLength !== undefined || node.maxLength !== undefined;
    if (pattern || check || measured) {
      const marker: Marker = { name: `${MARKER_PREFIX}${this.#markers.length}`, pattern, format, check, failures: new Set() };
      this.#markers.push(marker);
      node.format = marker.name;
    }
    if (isObject(node.patternProperties)) {
      const rewritten: Record<string, unknown> = {};
      Object.entries(node.patternProperties).forEach(([source, sub], index) => {
        const key = this.#exactNames(this.#compiled(source), index);
        this.#rewrittenKeys.set(key, source);
        setOwn(rewritten, key, sub);
      });
      node.patternProperties = rewritten;
    }
    return node;
  }

  install(): void {
    for (const marker of this.#markers)
      setOwn(formatTable as Record<string, unknown>, marker.name, (value: string) => this.#checkString(marker, value));
  }

  uninstall(): void {
    for (const marker of this.#markers) delete (formatTable as Record<string, unknown>)[marker.name];
  }

  /** Checks that could not be made; each fails the validation whatever else was found. */
  refusals(): string[] {
    const lines: string[] = [];
    if (this.#exhausted)
      lines.push(`#: the input is too large to check against the schema's patterns (at most ${MAX_PATTERN_WORK} steps of matching).`);
    if (this.#longNames)
      lines.push(`#: a property name is longer than ${MAX_PATTERN_SUBJECT_CHARS} characters, the most checked against patternProperties.`);
    return lines;
  }

  /** The validator's message in the schema's own terms: our names replaced by the tenant's. */
  explain(message: string): string {
    const marker = this.#markers.find((m) => message.includes(`"${m.name}"`));
    if (marker) {
      const parts: string[] = [];
      if (marker.failures.has("too_long"))
        parts.push(`String is longer than ${MAX_PATTERN_SUBJECT_CHARS} characters, the most checked against a pattern or format.`);
      if (marker.failures.has("pattern") && marker.pattern) parts.push(`String does not match pattern "${marker.pattern.source}".`);
      if (marker.failures.has("format")) parts.push(`String does not match format "${marker.format}".`);
      return parts.join(" ") || "String does not match the schema's pattern or format.";
    }
    for (const [key, source] of this.#rewrittenKeys) if (message.includes(key)) return message.replace(key, source);
    return message;
  }

  #compiled(source: string): CompiledPattern {
    const result = compilePattern(source);
    // checkSchema ran first, so every pattern compiles; this guards a change in that order.
    if (!result.ok) throw new Error(`pattern used before it was checked: ${result.problem}`);
    return result.pattern;
  }

  #checkString(marker: Marker, value: string): boolean {
    this.#charge(Math.ceil(value.length / STRING_CHARS_PER_WORK));
    // A marker for minLength or maxLength alone only counts: the length is the validator's to check.
    if (!marker.pattern && !marker.check) return true;
    if (value.length > MAX_PATTERN_SUBJECT_CHARS) {
      marker.failures.add("too_long");
      return false;
    }
    if (marker.pattern && !this.#test(marker.pattern, value)) {
      marker.failures.add("pattern");
      return false;
    }
    if (marker.check && !marker.check(value)) {
      marker.failures.add("format");
      return false;
    }
    return true;
  }

  #test(pattern: CompiledPattern, subject: string): boolean {
    this.#work += (subject.length + 1) * pattern.size;
    if (this.#work > MAX_PATTERN_WORK) {
      // Failing closed: a check not made is never taken for a match or a miss.
      this.#exhausted = true;
      return false;
    }
    return pattern.test(subject);
  }

  /**
   * A native regex that matches exactly the input's property names that RE2 matched: literals
   * in one anchored alternation, which the native engine runs without backtracking. The empty
   * named group keeps keys distinct when two patterns match the same names.
   */
  #exactNames(pattern: CompiledPattern, index: number): string {
    const matched: string[] = [];
    for (const name of this.#names) {
      if (name.length > MAX_PATTERN_SUBJECT_CHARS) this.#longNames = true;
      else if (this.#test(pattern, name)) matched.push(name);
    }
    const body = matched.length > 0 ? `^(?:${matched.map(literal).join("|")})$` : "[]";
    const key = `${body}(?<p${index}>)`;
    const units = Math.ceil(key.length / PATTERN_KEY_CHARS_PER_WORK);
    for (const name of matched) this.keyWork.set(name, (this.keyWork.get(name) ?? 0) + units);
    return key;
  }
}

/** `text` as a u-flag regex literal: letters and digits as they are, anything else as \u{…}. */
function literal(text: string): string {
  let out = "";
  for (const ch of text) out += /^[A-Za-z0-9_]$/.test(ch) ? ch : `\\u{${ch.codePointAt(0)!.toString(16)}}`;
  return out;
}
