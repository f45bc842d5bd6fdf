/**
 * The engine against crafted policies, in workerd: what traps Cedar's WebAssembly is refused before
 * Cedar sees it, the largest shapes within the limits check and judge, and a trap replaces the
 * instance instead of breaking it for every tenant of the isolate.
 */
import { describe, expect, it } from "vitest";
import { loadCedar } from "../../src/policy/load";
import { MAX_POLICY_NESTING, MAX_STATEMENT_OPERATORS, shapeError } from "../../src/policy/limits";
import { principalOf } from "../../src/policy/request";
import type { PolicyRequest } from "../../src/policy/schema";

const call: PolicyRequest = {
  principal: principalOf("end_user:alice", "k1"),
  tool: { name: "send", type: "webhook", trust: "trusted" },
  input: { a: "x" },
  tainted: false,
  session_metadata: {},
};
const statement = (body: string, effect = "forbid") => `${effect}(principal, action, resource) when { ${body} };`;
const parens = (n: number) => statement(`${"(".repeat(n)}true${")".repeat(n)}`);
const chain = (n: number) => statement(Array(n).fill('context.input.hasTag("a")').join(" || "));

describe("policy shape limits", () => {
  it("refuses the two crafted policies that trapped Cedar (140 nested parentheses; a forbid of 500 `||` terms)", async () => {
    const { checkPolicy, judge } = await loadCedar();
    expect(checkPolicy(parens(140))).toEqual({ ok: false, errors: [expect.stringMatching(/nests brackets deeper than 32/)] });
    expect(checkPolicy(chain(500))).toEqual({ ok: false, errors: [expect.stringMatching(/more than 128 operators/)] });
    // One stored before the limits existed is not compiled (the loop denies what it cannot judge), and the engine goes on.
    expect(() => judge({ tenant: chain(500), agent: null }, call)).toThrow(/more than 128 operators/);
    expect(checkPolicy(statement("true"))).toEqual({ ok: true, statements: 1 });
  });

  it("checks and judges the largest shapes within the limits", async () => {
    const { checkPolicy, judge } = await loadCedar();
    const deep = parens(MAX_POLICY_NESTING - 2); // the statement's own ( and { count
    const long = chain(Math.floor(MAX_STATEMENT_OPERATORS / 3)); // each term: two `.`, one `||`
    const ifs = statement(`${"if true then ".repeat(MAX_STATEMENT_OPERATORS)}true${" else false".repeat(MAX_STATEMENT_OPERATORS)}`);
    for (const text of [deep, long, ifs]) expect(shapeError(text)).toBeNull();
    const nested = statement(
      `${"(".repeat(MAX_POLICY_NESTING - 3)}${Array(Math.floor(MAX_STATEMENT_OPERATORS / 3))
        .fill('context.input.hasTag("a")')
        .join(" || ")}${")".repeat(MAX_POLICY_NESTING - 3)}`,
    );
    expect(shapeError(nested)).toBeNull();
    for (const text of [deep, long, ifs, nested]) {
      expect(checkPolicy(text)).toEqual({ ok: true, statements: 1 });
      expect(judge({ tenant: text, agent: null }, call).decision).toBe("deny");
    }
  });

  it("counts operators per statement and ignores those inside strings and comments", () => {
    const many = `permit(principal, action, resource) when { "${"||".repeat(500)}" like "*" }; // ${"&&".repeat(500)}`;
    expect(shapeError(many)).toBeNull();
    const split = Array(10)
      .fill(statement(Array(40).fill("true").join(" && ")))
      .join("\n");
    expect(shapeError(split)).toBeNull();
  });

  it("replaces an instance that trapped: later calls of every policy work", async () => {
    const { checkPolicy, judge, withCedar, CedarTrap } = await loadCedar();
    const forbidSend = '@id("f") forbid(principal, action, resource == Tool::"send");';
    expect(judge({ tenant: forbidSend, agent: null }, call).decision).toBe("deny");
    // Past the limits, straight into Cedar: the parser runs out of its stack and traps.
    expect(() => withCedar((cedar) => cedar.policySetTextToParts(parens(200)))).toThrow(CedarTrap);
    expect(checkPolicy(statement("true"))).toEqual({ ok: true, statements: 1 });
    expect(judge({ tenant: forbidSend, agent: null }, call)).toMatchObject({ decision: "deny", policy_ids: ["tenant.f"] });
    expect(judge({ tenant: forbidSend, agent: null }, { ...call, tool: { ...call.tool, name: "other" } }).decision).toBe("allow");
  });
});
