/**
 * Scenario 1: the platform process is stopped while a run is between steps and started again
 * on the same storage. The run goes on by itself and every message is saved once, in order.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { historyProblems, textOf } from "./support/history";
import { callTools, say, waitForFinal, waitForRequests, webhookTool } from "./support/scenario";
import { type Stack, startStack, uniqueName } from "./support/stack";

/** Long enough that only the restart, never the mock, ends the third model call. */
const HELD_MODEL_CALL_MS = 60_000;
const STEP_TIMEOUT_MS = 30_000;

describe("a restart in the middle of a run", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  it("goes on by itself after SIGTERM and saves every message once and in order", async () => {
    const client = await stack.client(uniqueName("tenant"));
    const model = stack.mock.model(uniqueName("model"));
    const hook = stack.mock.hook(uniqueName("lookup"));
    await model.script(
      callTools([["toolu_first", "lookup"]]),
      callTools([["toolu_second", "lookup"]]),
      say("an answer the restart cuts off", HELD_MODEL_CALL_MS),
      say("all done"),
    );
    const session = await client.createSession({
      input: "look two things up",
      model: model.key,
      tools: [webhookTool("lookup", hook.url, false)],
    });

    // The third model call is under way: the run is between step 2 and step 3.
    await waitForRequests(model, 3, STEP_TIMEOUT_MS);
    await stack.platform.restart("SIGTERM");
    // Nothing asks the platform anything until the run has moved: the restart alone resumes it.
    await waitForRequests(model, 4, STEP_TIMEOUT_MS);
    const final = await waitForFinal(client, session.id, STEP_TIMEOUT_MS);

    expect(final.status, stack.logs()).toBe("done");
    expect(final.stop_reason).toBe("end_turn");
    expect(final.usage.steps).toBe(3);

    const calls = await model.requests();
    expect(calls).toHaveLength(4);
    expect(calls[2]?.answered_at, "the cut-off call was never answered").toBeUndefined();
    expect(calls[2]?.disconnected_at).toBeTypeOf("number");
    // The retried call asks exactly what the cut-off one asked: nothing was saved in between.
    expect((calls[3]?.body as { messages: unknown }).messages).toEqual((calls[2]?.body as { messages: unknown }).messages);

    const messages = await client.messages(session.id);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(textOf(messages[5])).toBe("all done");
    expect(JSON.stringify(messages)).not.toContain("cuts off");
    expect(historyProblems(messages, await client.toolCalls(session.id))).toEqual([]);

    // Each tool ran once: both webhook calls happened before the restart and none again after.
    const hookCalls = await hook.requests();
    expect(hookCalls.map((r) => r.headers["idempotency-key"])).toEqual([`${session.id}:toolu_first`, `${session.id}:toolu_second`]);
  });
});
