/**
 * Work a tenant's model makes the platform do on the isolate its sessions share with other
 * tenants, each run on `wrangler dev` while another tenant's requests are timed against their
 * pace alone: a tool input whose `patternProperties` check once compiled a regex of every
 * property name once per object (6,000 objects: another tenant waited 4.9 s), and `run_code`
 * built-ins whose work no interrupt check reaches.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelStep } from "../support/mock-protocol";
import { calibrate, expectWithinCalibration, timedWhile } from "./support/bystander";
import { say, waitForFinal } from "./support/scenario";
import { type SharedStack, sharedStack, uniqueName } from "./support/stack";

const RUN_TIMEOUT_MS = 120_000;
/** The sessions and steps of the string-search attack: three sessions of twenty `run_code` calls each. */
const STRING_SESSIONS = 3;
const STRING_STEPS = 20;
/** How long each of the attacker's model answers takes to come, so the attack spans many of the bystander's requests. */
const ANSWER_DELAY_MS = 300;

const toolUse = (id: string, name: string, input: unknown): ModelStep => ({
  delay_ms: ANSWER_DELAY_MS,
  reply: { content: [{ type: "tool_use", id, name, input }] },
});

describe("work a tenant's model asks for", () => {
  let stack: SharedStack;

  beforeAll(async () => {
    stack = await sharedStack();
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  it("a tool input of 6,000 objects under patternProperties is refused by its work budget without slowing another tenant", async () => {
    const attacker = await stack.client(uniqueName("attacker"));
    const bystander = await stack.client(uniqueName("bystander"));
    const model = stack.mock.model(uniqueName("model"));
    const hook = stack.mock.hook(uniqueName("keyed"));
    // Every object has a property name of its own, all matched by the one pattern.
    const items = Array.from({ length: 6_000 }, (_, i) => ({ [`k${i}`]: i }));
    await model.script(...Array.from({ length: 3 }, (_, i) => toolUse(`toolu_${i}`, "keyed", { items })), say("gave up"));
    const tool = {
      type: "webhook" as const,
      name: "keyed",
      description: "a tool whose items are maps of numbers",
      input_schema: {
        type: "object",
        properties: { items: { type: "array", items: { type: "object", patternProperties: { "^k": { type: "number" } } } } },
        required: ["items"],
      },
      url: hook.url,
    };

    const calibration = await calibrate(bystander);
    let final: Awaited<ReturnType<typeof waitForFinal>> | undefined;
    let outputs: (string | null | undefined)[] = [];
    const latencies = await timedWhile(bystander, async () => {
      const session = await attacker.createSession({ input: "go", model: model.key, tools: [tool] });
      final = await waitForFinal(attacker, session.id, RUN_TIMEOUT_MS);
      outputs = (await attacker.toolCalls(session.id)).map((call) => call.output);
    });

    expectWithinCalibration(latencies, calibration);
    expect(final?.status, stack.logs()).toBe("done");
    expect(outputs).toEqual(
      Array(3).fill("invalid input: #: the input is too large to check against this schema (at most 300000 steps of validation)."),
    );
    expect(await hook.requests()).toHaveLength(0);
  });

  it("run_code's generic array built-ins over huge array-likes stop at the work limit without slowing another tenant", async () => {
    const attacker = await stack.client(uniqueName("attacker"));
    const bystander = await stack.client(uniqueName("bystander"));
    const model = stack.mock.model(uniqueName("model"));
    // Each was one native call (or a loop of them) that no interrupt check reached: 15 s and more.
    const attacks = [
      "return Array.prototype.indexOf.call({ length: 2 ** 28 }, 1);",
      "const a = []; a.length = 2 ** 28; return a.lastIndexOf(1);",
      "let n = 0; for (let i = 0; i < 100000; i++) n += Array.prototype.indexOf.call({ length: 2 ** 16 }, 1); return n;",
      "return Array.prototype.copyWithin.call({ length: 2 ** 28 }, 0, 1).length;",
      "const a = []; a.length = 2 ** 28; return [a].flat().length;",
      "let n = 0; const a = []; a.length = 2 ** 28; for (;;) { try { n += a.includes(1); } catch {} }",
    ];
    await model.script(...attacks.map((code, i) => toolUse(`toolu_${i}`, "run_code", { code })), say("done"));

    const calibration = await calibrate(bystander);
    let status: string | undefined;
    let outputs: { error?: string }[] = [];
    const latencies = await timedWhile(bystander, async () => {
      const session = await attacker.createSession({ input: "scan", model: model.key, tools: [{ type: "builtin", name: "run_code" }] });
      status = (await waitForFinal(attacker, session.id, RUN_TIMEOUT_MS)).status;
      outputs = (await attacker.toolCalls(session.id)).map((call) => JSON.parse(call.output ?? "null"));
    });

    expectWithinCalibration(latencies, calibration);
    expect(status, stack.logs()).toBe("done");
    expect(outputs).toEqual(
      attacks.map(() => ({ error: expect.stringMatching(/^stopped: the code ran past its time limit/), console: "" })),
    );
  });

  it("run_code's string searches in loops, three sessions at once, stop at the work limit without slowing another tenant", async () => {
    const attacker = await stack.client(uniqueName("attacker"));
    const bystander = await stack.client(uniqueName("bystander"));
    // Each search fits the native path alone (2,000 × 1,000 comparisons); 100,000 of them once
    // went 9 s between two interrupt checks. The other is the guard's linear search, at length.
    const loop = `const s = "a".repeat(2000), n = "a".repeat(999) + "b"; let c = 0; for (let i = 0; i < 100000; i++) c += s.indexOf(n); return c;`;
    const long = `const s = "a".repeat(300000), n = "a".repeat(29999) + "b"; let c = 0; for (let i = 0; i < 100; i++) c += s.split(n).length; return c;`;
    const steps = Array.from({ length: STRING_STEPS }, (_, i) => (i % 2 === 0 ? loop : long));
    const models = Array.from({ length: STRING_SESSIONS }, () => stack.mock.model(uniqueName("model")));
    for (const model of models)
      await model.script(
        ...steps.map((code, i) => ({
          reply: { content: [{ type: "tool_use" as const, id: `toolu_${i}`, name: "run_code", input: { code } }] },
        })),
        say("done"),
      );

    const calibration = await calibrate(bystander);
    const finals: string[] = [];
    const latencies = await timedWhile(bystander, async () => {
      await Promise.all(
        models.map(async (model) => {
          const session = await attacker.createSession({
            input: "search",
            model: model.key,
            tools: [{ type: "builtin", name: "run_code" }],
          });
          finals.push((await waitForFinal(attacker, session.id, RUN_TIMEOUT_MS)).status);
        }),
      );
    });

    expectWithinCalibration(latencies, calibration);
    expect(finals, stack.logs()).toEqual(Array(STRING_SESSIONS).fill("done"));
  });
});
