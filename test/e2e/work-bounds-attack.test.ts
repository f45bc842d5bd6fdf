/**
 * Tenant-supplied work that once held the isolate for seconds, run on `wrangler dev` while
 * another tenant's requests are timed: a JSON Schema whose validation is exponential (refused at
 * creation), a validation whose work is quadratic (stopped by its budget in the session), and
 * `run_code` string searches the interpreter could not interrupt (run as a linear search). The
 * other tenant's p99 must stay within a second of its own, timed alone just before in the same run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { doublingChain } from "../support/hostile-schemas";
import type { ModelStep } from "../support/mock-protocol";
import { calibrate, expectWithinCalibration, timedWhile } from "./support/bystander";
import { say, waitForFinal } from "./support/scenario";
import { type Stack, startStack, uniqueName } from "./support/stack";

const RUN_TIMEOUT_MS = 60_000;

const toolUse = (id: string, name: string, input: unknown): ModelStep => ({ reply: { content: [{ type: "tool_use", id, name, input }] } });

describe("tenant-supplied work", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  it("an exponential schema is refused at creation and a quadratic validation stops, without stalling another tenant", async () => {
    const attacker = await stack.client(uniqueName("attacker"));
    const bystander = await stack.client(uniqueName("bystander"));
    const model = stack.mock.model(uniqueName("model"));
    const hook = stack.mock.hook(uniqueName("unique"));
    // 20,000 distinct objects under uniqueItems: 2 × 10^8 comparisons without a budget (29 s).
    const items = Array.from({ length: 20_000 }, (_, i) => ({ id: i }));
    await model.script(toolUse("toolu_1", "unique", { items }), toolUse("toolu_2", "unique", { items }), say("gave up"));
    const tool = {
      type: "webhook" as const,
      name: "unique",
      description: "a tool whose input must hold distinct items",
      input_schema: { type: "object", properties: { items: { type: "array", uniqueItems: true } }, required: ["items"] },
      url: hook.url,
    };

    const calibration = await calibrate(bystander);
    let final: Awaited<ReturnType<typeof waitForFinal>> | undefined;
    const refusals: { status: number; body: unknown }[] = [];
    const latencies = await timedWhile(bystander, async () => {
      for (let i = 0; i < 3; i++) {
        const res = await attacker.request("POST", "/v1/sessions", { input: "go", model: model.key, output_schema: doublingChain(24) });
        refusals.push({ status: res.status, body: res.body });
      }
      const session = await attacker.createSession({ input: "go", model: model.key, tools: [tool] });
      final = await waitForFinal(attacker, session.id, RUN_TIMEOUT_MS);
      const calls = await attacker.toolCalls(session.id);
      expect(calls.map((c) => c.output)).toEqual(
        Array(2).fill("invalid input: #: the input is too large to check against this schema (at most 300000 steps of validation)."),
      );
    });

    for (const refusal of refusals) {
      expect(refusal.status).toBe(400);
      expect(refusal.body).toMatchObject({
        errors: [{ path: expect.stringMatching(/^body\.output_schema\.\$defs\.d\d+$/), message: expect.stringContaining("Too complex") }],
      });
    }
    expect(final?.status, stack.logs()).toBe("done");
    expect(await hook.requests()).toHaveLength(0);
    expectWithinCalibration(latencies, calibration);
  });

  it("run_code string searches over large strings end without stalling another tenant", async () => {
    const attacker = await stack.client(uniqueName("attacker"));
    const bystander = await stack.client(uniqueName("bystander"));
    const model = stack.mock.model(uniqueName("model"));
    // Each is past the native threshold (RUN_CODE_NATIVE_SEARCH_WORK): 10 million character pairs
    // natively, one call no interrupt check could stop; the linear search that runs instead ends
    // well within the interpreter's 300 ms on a busy machine (thirty times the length stops at
    // the limit: tool-input-attack.test.ts).
    const setup = `const s = "a".repeat(10000); const n = "a".repeat(999) + "b";`;
    const attacks = ["s.indexOf(n)", "s.lastIndexOf(n)", "s.split(n).length", "s.replaceAll(n, 'x').length"];
    await model.script(...attacks.map((expr, i) => toolUse(`toolu_${i}`, "run_code", { code: `${setup} return ${expr};` })), say("done"));

    const calibration = await calibrate(bystander);
    let outputs: unknown[] = [];
    let status: string | undefined;
    const latencies = await timedWhile(bystander, async () => {
      const session = await attacker.createSession({ input: "search", model: model.key, tools: [{ type: "builtin", name: "run_code" }] });
      status = (await waitForFinal(attacker, session.id, RUN_TIMEOUT_MS)).status;
      outputs = (await attacker.toolCalls(session.id)).map((call) => JSON.parse(call.output ?? "null"));
    });

    expect(status, stack.logs()).toBe("done");
    expect(outputs).toEqual([-1, -1, 1, 10000].map((result) => ({ result, console: "" })));
    expectWithinCalibration(latencies, calibration);
  });
});
