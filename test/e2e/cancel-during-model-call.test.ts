/**
 * Scenario 4: a cancel while the model is answering. The answer that comes after the cancel
 * is never saved, and the session stays cancelled, across a restart too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { say, waitForRequests } from "./support/scenario";
import { type Stack, startStack, uniqueName } from "./support/stack";
import { waitFor } from "./support/wait";

/** The model would answer this long after the call arrives; the cancel comes well before. */
const MODEL_DELAY_MS = 3_000;
const STEP_TIMEOUT_MS = 30_000;
/** Nothing has an end to wait for when nothing may happen; this is how long the test looks. */
const AFTER_RESTART_WATCH_MS = 2_000;

describe("cancel during a model call", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  it("does not save the answer that comes after the cancel, and the session stays cancelled", async () => {
    const client = await stack.client(uniqueName("tenant"));
    const model = stack.mock.model(uniqueName("model"));
    await model.script(say("an answer nobody wants any more", MODEL_DELAY_MS));
    const session = await client.createSession({ input: "think slowly", model: model.key });

    await waitForRequests(model, 1, STEP_TIMEOUT_MS);
    const cancelled = await client.cancel(session.id);
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.stop_reason).toBe("cancelled");

    // The cancel aborts the call in flight: the model server sees the platform hang up before it
    // answers, so no answer ever reaches the platform to be saved.
    const [call] = await waitFor(
      async () => {
        const requests = await model.requests();
        return requests[0]?.disconnected_at !== undefined || requests[0]?.answered_at !== undefined ? requests : undefined;
      },
      { timeoutMs: STEP_TIMEOUT_MS, intervalMs: 50, what: "the model call to end" },
    );
    expect(call!.answered_at, "the model call was answered after the cancel").toBeUndefined();
    const later = await client.getSession(session.id);
    expect(later.status, stack.logs()).toBe("cancelled");
    expect(later.stop_reason).toBe("cancelled");
    expect(later.error).toBeNull();
    const none = { steps: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 };
    expect(later.usage).toEqual({ ...none, subagents: none });
    const messages = await client.messages(session.id);
    expect(messages.map((m) => m.role)).toEqual(["user"]);
    expect(await model.requests(), "the cancelled call is not retried").toHaveLength(1);

    // Nothing left behind (no alarm, no half-written step) moves it after a crash either.
    await stack.platform.restart("SIGKILL");
    // An alarm left behind would fire as the restarted platform loads the session: watch a while.
    await new Promise((resolve) => setTimeout(resolve, AFTER_RESTART_WATCH_MS));
    expect((await client.getSession(session.id)).status).toBe("cancelled");
    expect(await client.messages(session.id)).toEqual(messages);
    expect(await model.requests()).toHaveLength(1);
  });
});
