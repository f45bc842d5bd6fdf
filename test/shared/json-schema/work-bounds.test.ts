import { describe, expect, it } from "vitest";
import { MAX_SCHEMA_APPLICATIONS } from "../../../src/shared/json-schema/work-limits";
import { complexityProblem } from "../../../src/shared/json-schema/complexity";
import { checkSchema, MAX_REPORTED_ERRORS, validateJson, workRefusal } from "../../../src/shared/json-schema/validator";
import { PlatformJsonSchemaValidator } from "../../../src/shared/json-schema/mcp-validator";
import { type ListedTool, planRunTools } from "../../../src/sessions/object/tools/mcp/plan";
import { doublingChain } from "../../support/hostile-schemas";

// What these bounds cost in time is measured by `npm run bench -- bench/work-bounds.ts`: a busy
// machine's clock would make a timed test flaky, so the tests hold to the deterministic outcome
// (a refusal, a count) that the bound guarantees.

describe("the complexity of a schema, computed from its structure", () => {
  it("refuses a doubling $defs chain, naming the entry, before validating anything", () => {
    const schema = doublingChain(24);
    const problems: ReturnType<typeof checkSchema> = checkSchema(schema);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.path.slice(0, 1)).toEqual(["$defs"]);
    expect(problems[0]!.message).toContain(`more than ${MAX_SCHEMA_APPLICATIONS} subschemas`);
    // And validation refuses it as unusable instead of running it.
    const result = validateJson(schema, { q: "x" });
    expect(result).toMatchObject({ valid: false, unusable: expect.stringContaining("Too complex") });
  });

  it("counts a chain below the budget and one just above it", () => {
    expect(complexityProblem(doublingChain(7))).toBeNull();
    expect(complexityProblem(doublingChain(8))).not.toBeNull();
  });

  it("counts fan-out through nesting: anyOf of references at every level of properties", () => {
    // Each level applies 4 copies of the next to the same child value: 4^6 at depth 6.
    const defs: Record<string, unknown> = {};
    for (let i = 0; i < 6; i++) {
      const next = { $ref: `#/$defs/l${i + 1}` };
      defs[`l${i}`] = { type: "object", properties: { c: { anyOf: [next, next, next, next] } } };
    }
    defs.l6 = { type: "string" };
    expect(complexityProblem({ $ref: "#/$defs/l0", $defs: defs })).toMatchObject({ message: expect.stringContaining("Too complex") });
  });

  it("refuses a reference cycle that never descends into the value", () => {
    const problem = complexityProblem({ $defs: { a: { allOf: [{ $ref: "#/$defs/b" }] }, b: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" });
    expect(problem?.message).toContain("Refers back to itself");
  });

  it("accepts recursive schemas that descend, and the kinds real tools declare", () => {
    const json = {
      $defs: {
        v: {
          anyOf: [
            { type: "string" },
            { type: "number" },
            { type: "array", items: { $ref: "#/$defs/v" } },
            { type: "object", additionalProperties: { $ref: "#/$defs/v" } },
          ],
        },
      },
      $ref: "#/$defs/v",
    };
    const tree = { type: "object", properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#" } } } };
    const wide = {
      type: "object",
      properties: Object.fromEntries(
        Array.from({ length: 200 }, (_, i) => [`p${i}`, { type: "object", properties: { a: { type: "string" }, b: { enum: [1, 2] } } }]),
      ),
    };
    for (const schema of [json, tree, wide]) expect(complexityProblem(schema)).toBeNull();
    expect(validateJson(tree, { name: "a", children: [{ name: "b", children: [] }] })).toEqual({ valid: true });
  });
});

describe("an MCP server's schemas", () => {
  it("refuses a discovered input schema over the budget, naming the server and the tool", () => {
    const tool: ListedTool = { name: "evil", inputSchema: doublingChain(24) };
    const plan = planRunTools([{ type: "mcp", name: "docs", url: "https://mcp.example.com/mcp" }], new Map([["docs", [tool]]]));
    expect(plan).toEqual({ ok: false, problem: expect.stringMatching(/^MCP server "docs", tool "evil": .*Too complex/) });
  });

  it("refuses a tool's output schema over the budget when its result is checked", () => {
    const check = new PlatformJsonSchemaValidator().getValidator(doublingChain(24) as never);
    expect(check({ q: "x" })).toMatchObject({ valid: false, errorMessage: expect.stringContaining("Too complex") });
  });
});

describe("the work of one validation", () => {
  it("stops uniqueItems over a long array, failing closed", () => {
    // 20,000 distinct objects: 2 × 10^8 deep comparisons unbounded (29 s measured).
    const items = Array.from({ length: 20_000 }, (_, i) => ({ id: i }));
    const result: ReturnType<typeof validateJson> = validateJson({ type: "array", uniqueItems: true }, items);
    expect(result).toEqual({ valid: false, unusable: null, errors: [workRefusal()] });
    // A modest array is still checked in full.
    expect(validateJson({ type: "array", uniqueItems: true }, items.slice(0, 150))).toEqual({ valid: true });
    expect(validateJson({ type: "array", uniqueItems: true }, [{ id: 1 }, { id: 1 }])).toMatchObject({ valid: false, unusable: null });
  });

  it("stops a schema within the complexity budget applied across a large value", () => {
    // 900 subschemas per element is allowed; 100,000 elements of it is not.
    const branches = Array.from({ length: 899 }, (_, i) => ({ type: "number", minimum: -i }));
    const schema = { type: "array", items: { allOf: branches } };
    expect(checkSchema(schema)).toEqual([]);
    const result: ReturnType<typeof validateJson> = validateJson(schema, Array(100_000).fill(1));
    expect(result).toEqual({ valid: false, unusable: null, errors: [workRefusal()] });
  });

  it("counts boolean subschemas applied in place", () => {
    const schema = { type: "array", items: { allOf: Array(998).fill(true) } };
    expect(checkSchema(schema)).toEqual([]);
    const result: ReturnType<typeof validateJson> = validateJson(schema, Array(100_000).fill(1));
    expect(result).toEqual({ valid: false, unusable: null, errors: [workRefusal()] });
  });

  it.each([
    // 100,000 elements against an enum of 100,000 values: 10^10 comparisons.
    ["a large enum", { type: "array", items: { enum: Array.from({ length: 100_000 }, (_, i) => i + 1) } }, Array(100_000).fill(0)],
    // 999 length checks of one 2,000,000-character string: 2 × 10^9 characters counted.
    ["minLength on a long string", { type: "array", items: { allOf: Array(999).fill({ minLength: 1 }) } }, ["x".repeat(2_000_000)]],
  ])("counts the work of %s", (_what, schema, value) => {
    expect(checkSchema(schema)).toEqual([]);
    const result: ReturnType<typeof validateJson> = validateJson(schema, value);
    expect(result).toEqual({ valid: false, unusable: null, errors: [workRefusal()] });
  });

  it("reports at most a few of a value's many errors", () => {
    const result = validateJson({ type: "array", items: { type: "string" } }, Array(30_000).fill(1));
    expect(result).toMatchObject({ valid: false, unusable: null });
    expect(result.valid === false && result.errors).toHaveLength(MAX_REPORTED_ERRORS);
  });

  it("checks minLength and maxLength on strings of any length, as before", () => {
    const schema = { type: "string", minLength: 1, maxLength: 30_000 };
    expect(validateJson(schema, "x".repeat(20_000))).toEqual({ valid: true });
    expect(validateJson(schema, "x".repeat(40_000))).toMatchObject({
      valid: false,
      errors: [expect.stringContaining("String is too long")],
    });
  });

  it("takes a long array without overflowing the stack", () => {
    expect(validateJson({ type: "array" }, Array(300_000).fill(0))).toEqual({ valid: true });
  });

  it("leaves ordinary validations within the budget", () => {
    const schema = {
      type: "object",
      properties: {
        rows: { type: "array", items: { type: "object", properties: { a: { type: "string" }, b: { type: "number" } }, required: ["a"] } },
      },
    };
    const rows = Array.from({ length: 5_000 }, (_, i) => ({ a: `r${i}`, b: i }));
    expect(validateJson(schema, { rows })).toEqual({ valid: true });
  });
});
