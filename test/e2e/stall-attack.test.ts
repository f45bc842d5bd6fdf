/**
 * The stall attack: one tenant declares a tool whose input_schema holds a pattern with
 * catastrophic backtracking (`^(a+)+$`), and its model calls the tool with a crafted input. On a
 * backtracking engine the validation would run for hours inside the isolate that also serves
 * every other tenant. Patterns run on RE2, so another tenant's requests keep answering at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectPrompt } from "./support/bystander";
import { say, waitForFinal } from "./support/scenario";
import { type SharedStack, sharedStack, uniqueName } from "./support/stack";

const RUN_TIMEOUT_MS = 30_000;
/** How long each of the attacker's model answers takes to come. */
const ANSWER_DELAY_MS = 300;
/** About 2^60 backtracking steps on the native engine. */
const CRAFTED_INPUT = "a".repeat(60) + "!";

describe("one tenant's catastrophic pattern", () => {
  let stack: SharedStack;

  beforeAll(async () => {
    stack = await sharedStack();
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  it("does not stall another tenant's requests", async () => {
    const attacker = await stack.client(uniqueName("attacker"));
    const bystander = await stack.client(uniqueName("bystander"));
    const attackerModel = stack.mock.model(uniqueName("model"));
    const hook = stack.mock.hook(uniqueName("evil"));
    const tool = {
      type: "webhook" as const,
      name: "evil",
      description: "a tool whose input pattern backtracks",
      input_schema: { type: "object", properties: { q: { type: "string", pattern: "^(a+)+$" } }, required: ["q"] },
      url: hook.url,
    };
    // The attacker's model calls the tool with the crafted input three times over, then stops.
    // Each answer takes a moment to come, so the attack lasts long enough for the bystander's
    // requests to fall between its validations however fast the run's own steps are.
    const call = (id: string) => ({
      delay_ms: ANSWER_DELAY_MS,
      reply: { content: [{ type: "tool_use", id, name: "evil", input: { q: CRAFTED_INPUT } }] },
    });
    await attackerModel.script(call("toolu_1"), call("toolu_2"), call("toolu_3"), say("gave up"));

    const mine = await bystander.createSession({});

    // The bystander keeps asking, one request after another, until the attack has played out.
    const latencies: number[] = [];
    let attackOver = false;
    const bystanding = (async () => {
      while (!attackOver) {
        const started = performance.now();
        // A request that times out counts with the time it waited, as a failure to answer.
        await bystander.getSession(mine.id).catch(() => undefined);
        latencies.push(performance.now() - started);
      }
    })();

    const attack = await attacker.createSession({ input: "go", model: attackerModel.key, tools: [tool] });
    const final = await waitForFinal(attacker, attack.id, RUN_TIMEOUT_MS).finally(() => {
      attackOver = true;
    });
    await bystanding;

    expect(final.status, stack.logs()).toBe("done");
    const calls = await attacker.toolCalls(attack.id);
    expect(calls.map((c) => c.output)).toEqual(Array(3).fill('invalid input: #/q: String does not match pattern "^(a+)+$".'));
    expect(await hook.requests()).toHaveLength(0);

    // The other tenant never waits longer than a second for an answer, stretched by the machine's load.
    expectPrompt(latencies);
  });
});
