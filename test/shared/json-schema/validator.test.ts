import { afterEach, describe, expect, it, vi } from "vitest";
import { MAX_PATTERN_SUBJECT_CHARS } from "../../../src/shared/json-schema/patterns";
import { checkSchema, validateJson } from "../../../src/shared/json-schema/validator";

const EVIL = "^(a+)+$";
/** Minutes on a backtracking engine; microseconds on RE2. */
const CRAFTED = "a".repeat(40) + "!";

/** Regex sources that must never run natively: the crafted input would hang the test. */
const NEVER_NATIVE = ["(a+)+", "\\S+(?::\\S*)?@"];

/**
 * Records the source of every regex the native engine runs (test, exec and match all call
 * exec), and refuses to run the dangerous ones, so that a regression fails instead of hanging.
 */
function nativeRuns(): string[] {
  const sources: string[] = [];
  const exec = RegExp.prototype.exec;
  vi.spyOn(RegExp.prototype, "exec").mockImplementation(function (this: RegExp, subject: string) {
    sources.push(this.source);
    if (NEVER_NATIVE.some((fragment) => this.source.includes(fragment))) throw new Error(`native run of ${this.source}`);
    return exec.call(this, subject);
  });
  return sources;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("validateJson never runs a tenant's pattern on the native engine", () => {
  it.each([
    ["pattern", { type: "object", properties: { q: { type: "string", pattern: EVIL } } }, { q: CRAFTED }],
    ["patternProperties", { type: "object", patternProperties: { [EVIL]: { type: "string" } } }, { [CRAFTED]: "x" }],
    [
      "$defs through $ref",
      { type: "object", properties: { q: { $ref: "#/$defs/evil" } }, $defs: { evil: { type: "string", pattern: EVIL } } },
      { q: CRAFTED },
    ],
    ["propertyNames", { type: "object", propertyNames: { pattern: EVIL } }, { [CRAFTED]: 1 }],
    [
      "items and anyOf",
      { type: "object", properties: { l: { type: "array", items: { anyOf: [{ pattern: EVIL }, { type: "number" }] } } } },
      { l: [CRAFTED] },
    ],
    [
      "an unknown keyword reached by $ref",
      { type: "object", properties: { q: { $ref: "#/x-evil" } }, "x-evil": { pattern: EVIL } },
      { q: CRAFTED },
    ],
    [
      "dependentSchemas and not",
      { type: "object", dependentSchemas: { q: { not: { properties: { q: { pattern: EVIL } } } } } },
      { q: CRAFTED },
    ],
  ])("in %s", (_where, schema, input) => {
    const runs = nativeRuns();
    const result = validateJson(schema, input);
    expect(result.valid === false && result.unusable).toBeFalsy();
    expect(runs.filter((source) => source.includes("(a+)+"))).toEqual([]);
  });

  it("nor the validator's own url format, which backtracks exponentially", () => {
    const runs = nativeRuns();
    validateJson({ type: "object", properties: { u: { type: "string", format: "url" } } }, { u: "http://" + "a".repeat(40) + "!" });
    expect(runs.filter((source) => source.includes("\\S+(?::\\S*)?@"))).toEqual([]);
  });
});

describe("validateJson keeps JSON Schema's meaning", () => {
  const codeSchema = { type: "object", properties: { code: { type: "string", pattern: "^[A-Z]{3}-\\d{2}$" } }, required: ["code"] };

  it.each([
    [codeSchema, { code: "ABC-12" }, true],
    [codeSchema, { code: "abc-12" }, false],
    [codeSchema, { code: 12 }, false],
    [{ type: "object", properties: { s: { pattern: "b" } } }, { s: "abc" }, true], // unanchored
    [{ type: "object", properties: { s: { pattern: "b" } } }, { s: 42 }, true], // applies to strings only
    [{ type: "object", patternProperties: { "^x-": { type: "number" } }, additionalProperties: false }, { "x-a": 1, "x-b": 2 }, true],
    [{ type: "object", patternProperties: { "^x-": { type: "number" } }, additionalProperties: false }, { "x-a": "one" }, false],
    [{ type: "object", patternProperties: { "^x-": { type: "number" } }, additionalProperties: false }, { y: 1 }, false],
    [{ type: "object", patternProperties: { "^a": { minimum: 5 }, a$: { maximum: 7 } } }, { a: 6 }, true],
    [{ type: "object", patternProperties: { "^a": { minimum: 5 }, a$: { maximum: 7 } } }, { a: 8 }, false],
    [{ type: "object", patternProperties: { "^a": { minimum: 5 }, a$: { maximum: 7 } } }, { a: 4 }, false],
    [{ type: "object", patternProperties: { "\\.": { type: "string" } } }, { "a.b|c": 1 }, false], // names with regex syntax are literals
    [{ type: "object", propertyNames: { pattern: "^[a-z]+$" } }, { abc: 1 }, true],
    [{ type: "object", propertyNames: { pattern: "^[a-z]+$" } }, { ABC: 1 }, false],
    [{ type: "object", properties: { e: { format: "email", pattern: "@example\\.com$" } } }, { e: "a@example.com" }, true],
    [{ type: "object", properties: { e: { format: "email", pattern: "@example\\.com$" } } }, { e: "a@other.com" }, false],
    [
      { type: "object", properties: { e: { format: "email", pattern: "@example\\.com$" } } },
      { e: "not-an-email@example.com@example.com" },
      false,
    ],
    [{ type: "object", properties: { u: { format: "url" } } }, { u: "https://example.com/x?y=1" }, true],
    [{ type: "object", properties: { u: { format: "url" } } }, { u: "not a url" }, false],
    [{ type: "object", properties: { f: { format: "no-such-format" } } }, { f: "anything" }, true],
    [{ type: "object", properties: { f: { format: "__proto__" } } }, { f: "anything" }, true],
    [{ type: "object", properties: { f: { format: "constructor" } } }, { f: "anything" }, true],
    [{ type: "object", properties: { pattern: { type: "string" }, format: { type: "number" } } }, { pattern: "p", format: 1 }, true],
    [{ type: "object", const: { pattern: EVIL } }, { pattern: EVIL }, true], // data, not a schema
  ])("%j with %j is valid: %s", (schema, input, valid) => {
    const result = validateJson(schema, input);
    if (result.valid === false) expect(result.unusable).toBeNull();
    expect(result.valid).toBe(valid);
  });

  it("names the tenant's pattern in the error, not the rewritten one", () => {
    const result = validateJson(codeSchema, { code: "nope" });
    expect(result).toEqual({ valid: false, unusable: null, errors: ['#/code: String does not match pattern "^[A-Z]{3}-\\d{2}$".'] });
  });

  it(`fails a string longer than ${MAX_PATTERN_SUBJECT_CHARS} characters, saying why`, () => {
    const result = validateJson(codeSchema, { code: "A".repeat(MAX_PATTERN_SUBJECT_CHARS + 1) });
    expect(result.valid).toBe(false);
    if (!result.valid) expect(result.errors.join()).toContain(`longer than ${MAX_PATTERN_SUBJECT_CHARS} characters`);
  });

  it("fails closed when the matching work is used up", () => {
    const schema = { type: "object", additionalProperties: { type: "string", pattern: "^\\p{L}{100}\\p{L}{100}\\p{L}{100}\\p{L}{100}$" } };
    const input = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, "é".repeat(MAX_PATTERN_SUBJECT_CHARS - 10)]));
    const result = validateJson(schema, input);
    expect(result.valid).toBe(false);
    if (!result.valid) expect(result.errors[0]).toContain("too large to check against the schema's patterns");
  });

  it("leaves the tenant's schema object as it was", () => {
    const schema = { type: "object", properties: { q: { type: "string", pattern: "^a" } }, patternProperties: { "^b": {} } };
    const before = JSON.stringify(schema);
    validateJson(schema, { q: "a", b: 1 });
    expect(JSON.stringify(schema)).toBe(before);
    expect(Object.getOwnPropertyNames(schema.properties.q)).toEqual(["type", "pattern"]);
  });

  it("says why a schema with a dangling $ref cannot be used", () => {
    const result = validateJson({ type: "object", properties: { a: { $ref: "#/$defs/missing" } } }, { a: 1 });
    expect(result).toMatchObject({ valid: false, unusable: expect.stringContaining("Unresolved $ref") });
  });
});

describe("checkSchema", () => {
  it("names every pattern RE2 cannot run, by its path", () => {
    const problems = checkSchema({
      type: "object",
      properties: { a: { type: "string", pattern: "(x)\\1" }, pattern: { type: "string" } },
      patternProperties: { "(?=y)": {} },
      $defs: { d: { items: { pattern: "(?<!z)w" } } },
    });
    expect(problems.map((p) => p.path.join("/")).sort()).toEqual([
      "$defs/d/items/pattern",
      "patternProperties/(?=y)",
      "properties/a/pattern",
    ]);
    expect(problems.find((p) => p.path[1] === "a")!.message).toContain("Backreferences");
  });

  it("refuses a non-string pattern and schemas whose patterns are too large together", () => {
    expect(checkSchema({ type: "object", properties: { a: { pattern: 5 } } })).toEqual([
      { path: ["properties", "a", "pattern"], message: "Must be a string." },
    ]);
    const many = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`p${i}`, { pattern: "[a-z]{1,250}" }]));
    expect(checkSchema({ type: "object", properties: many })[0]!.message).toContain("Too large");
  });

  it("makes validation say the schema cannot be used rather than run a refused pattern", () => {
    expect(validateJson({ type: "object", properties: { a: { pattern: "(?=x)" } } }, { a: "x" })).toMatchObject({
      valid: false,
      unusable: expect.stringContaining("properties/a/pattern: Lookahead and lookbehind are not supported"),
    });
  });
});
