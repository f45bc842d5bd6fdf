/**
 * Scenario 2: the process is killed (-9) while a webhook call is on its way. An at-most-once
 * webhook is never called again: its result says so. An idempotent one is called again with
 * the same Idempotency-Key, and its second answer is the result.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { historyProblems, textOf } from "./support/history";
import { callTools, INTERRUPTED_BY_RESTART, say, waitForFinal, waitForRequests, webhookTool } from "./support/scenario";
import { type Stack, startStack, uniqueName } from "./support/stack";

const STEP_TIMEOUT_MS = 30_000;
/** After the run ended, a late second call would have come well within this. */
const QUIET_AFTER_END_MS = 2_000;

describe("kill -9 during a webhook call", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  async function runUntilHookHeld(atMostOnce: boolean) {
    const client = await stack.client(uniqueName("tenant"));
    const model = stack.mock.model(uniqueName("model"));
    const hook = stack.mock.hook(uniqueName("charge"));
    await model.script(callTools([["toolu_charge", "charge"]]), say("finished"));
    // The first call is held until the test releases it, which it never does; a second call gets 200.
    await hook.script(
      { hold: true, then: { status: 200, body: { output: "never seen" } } },
      { status: 200, body: { output: "charged once" } },
    );
    const session = await client.createSession({
      input: "charge the card",
      model: model.key,
      tools: [webhookTool("charge", hook.url, atMostOnce)],
    });
    await waitForRequests(hook, 1, STEP_TIMEOUT_MS);
    await stack.platform.restart("SIGKILL");
    const final = await waitForFinal(client, session.id, STEP_TIMEOUT_MS);
    await new Promise((resolve) => setTimeout(resolve, QUIET_AFTER_END_MS));
    return { client, model, hook, session, final };
  }

  it("never calls an at-most-once webhook again and records that it was interrupted", async () => {
    const { client, model, hook, session, final } = await runUntilHookHeld(true);

    expect(final.status, stack.logs()).toBe("done");
    expect(final.stop_reason).toBe("end_turn");
    const hookCalls = await hook.requests();
    expect(hookCalls).toHaveLength(1);
    expect(hookCalls[0]?.disconnected_at, "the held call was cut off by the kill").toBeTypeOf("number");

    const [call] = await client.toolCalls(session.id);
    expect(call).toMatchObject({ id: "toolu_charge", status: "error", is_error: true, output: INTERRUPTED_BY_RESTART });
    const messages = await client.messages(session.id);
    expect(messages[2]?.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_charge", content: INTERRUPTED_BY_RESTART, is_error: true },
    ]);
    expect(textOf(messages[3])).toBe("finished");
    expect(historyProblems(messages, await client.toolCalls(session.id))).toEqual([]);
    // The model was told, in the next call, that the tool did not run to the end.
    expect(JSON.stringify((await model.requests())[1]?.body)).toContain(INTERRUPTED_BY_RESTART);
  });

  it("calls an idempotent webhook again with the same Idempotency-Key", async () => {
    const { client, hook, session, final } = await runUntilHookHeld(false);

    expect(final.status, stack.logs()).toBe("done");
    const hookCalls = await hook.requests();
    expect(hookCalls).toHaveLength(2);
    const key = `${session.id}:toolu_charge`;
    expect(hookCalls.map((r) => r.headers["idempotency-key"])).toEqual([key, key]);
    expect(hookCalls[1]?.body).toEqual(hookCalls[0]?.body);

    const [call] = await client.toolCalls(session.id);
    expect(call).toMatchObject({ id: "toolu_charge", status: "done", is_error: false, output: "charged once" });
    expect(historyProblems(await client.messages(session.id), [call!])).toEqual([]);
  });
});
