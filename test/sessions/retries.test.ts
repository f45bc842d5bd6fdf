import { describe, expect, it } from "vitest";
import { MAX_ATTEMPTS } from "../../src/limits";
import { createAndStart, getSession, messages, newTestSession, runState, skipBackoff, waitForStatus } from "../support/agent-session";

const text = (t: string) => ({ type: "text", text: t });

/** Waits until the run has recorded `attempts` failed tries (each schedules its backoff). */
async function waitForAttempts(t: ReturnType<typeof newTestSession>, attempts: number) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const run = await runState(t);
    if (run.attempts >= attempts || run.status !== "running") return run;
    if (Date.now() > deadline) throw new Error(`only ${run.attempts} attempts recorded`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("model call retries", () => {
  it("waits at least Retry-After after a 429, then succeeds", async () => {
    const t = newTestSession();
    await t.model.script({ status: 429, headers: { "retry-after": "2" } }, { reply: { content: [text("finally")] } });
    await createAndStart(t, "hello");
    const done = await waitForStatus(t, ["done", "failed"], 10_000);
    expect(done.status).toBe("done");
    const [first, second] = await t.model.requests();
    expect(second!.received_at - first!.received_at).toBeGreaterThanOrEqual(2000);
    expect((await runState(t)).attempts).toBe(0);
    expect((await messages(t)).map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it(`fails the run after ${MAX_ATTEMPTS} server errors, backing off longer each time`, async () => {
    const t = newTestSession();
    await t.model.script({ status: 500, repeat: MAX_ATTEMPTS }, { reply: { content: [text("never seen")] } });
    await createAndStart(t, "hello");
    const waits: number[] = [];
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      const run = await waitForAttempts(t, attempt);
      expect(run.status).toBe("running");
      waits.push(await skipBackoff(t));
    }
    const failed = await waitForStatus(t, ["failed", "done"]);
    expect(failed).toMatchObject({ status: "failed", stop_reason: "model_error" });
    expect(failed.error).toMatch(new RegExp(`after ${MAX_ATTEMPTS} attempts: model provider answered 500`));
    expect(await t.model.requests()).toHaveLength(MAX_ATTEMPTS);
    // Exponential backoff with jitter: each wait is at least half the nominal delay.
    waits.forEach((wait, i) => expect(wait).toBeGreaterThan(0.5 * 1000 * 2 ** i - 100));
    expect(waits[3]!).toBeGreaterThan(waits[0]!);
    expect(await messages(t)).toHaveLength(1);
  });

  it("fails at once on a 400, showing the status and error type but never the provider's text", async () => {
    const t = newTestSession();
    const secretText = "Your credit balance is too low to access the API (organization org-platform-42)";
    await t.model.script({ status: 400, body: { type: "error", error: { type: "invalid_request_error", message: secretText } } });
    await createAndStart(t, "hello");
    const failed = await waitForStatus(t, ["failed", "done"]);
    expect(failed).toMatchObject({ status: "failed", stop_reason: "model_error" });
    expect(failed.error).toBe("model provider answered 400 (invalid_request_error)");
    expect(JSON.stringify(await getSession(t))).not.toContain("credit balance");
    expect(await t.model.requests()).toHaveLength(1);
  });

  it("retries a body that is not JSON and a dropped connection", async () => {
    const t = newTestSession();
    await t.model.script({ invalid_json: true }, { reset: true }, { reply: { content: [text("ok now")] } });
    await createAndStart(t, "hello");
    await waitForAttempts(t, 1);
    await skipBackoff(t);
    await waitForAttempts(t, 2);
    await skipBackoff(t);
    const done = await waitForStatus(t, ["done", "failed"]);
    expect(done.status).toBe("done");
    expect(await t.model.requests()).toHaveLength(3);
    expect((await messages(t)).map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("a cancel during a backoff stops the retries", async () => {
    const t = newTestSession();
    await t.model.script({ status: 503, headers: { "retry-after": "30" } });
    await createAndStart(t, "hello");
    await waitForAttempts(t, 1);
    expect((await t.stub.cancel()).ok).toBe(true);
    const session = await getSession(t);
    expect(session.status).toBe("cancelled");
    expect(await t.model.requests()).toHaveLength(1);
  });
});

describe("model call timeout", () => {
  it("abandons a call slower than MODEL_TIMEOUT_MS and retries it", async () => {
    const t = newTestSession();
    await t.model.script({ hang: true }, { reply: { content: [text("in time")] } });
    await createAndStart(t, "hello");
    const run = await waitForAttempts(t, 1);
    expect(run.status).toBe("running");
    // The mock may hear of the hang-up a moment after the platform recorded the attempt.
    let [first] = await t.model.requests();
    for (let i = 0; i < 100 && first?.disconnected_at === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      [first] = await t.model.requests();
    }
    // The platform gave up on its own (MODEL_TIMEOUT_MS is 3 s in tests), not the mock.
    expect(first!.disconnected_at! - first!.received_at).toBeGreaterThanOrEqual(2000);
    await skipBackoff(t);
    expect((await waitForStatus(t, ["done", "failed"])).status).toBe("done");
    expect((await messages(t)).map((m) => m.role)).toEqual(["user", "assistant"]);
  });
});

describe("pause during a backoff", () => {
  it("keeps the backoff and the attempt count across pause and resume", async () => {
    const t = newTestSession();
    await t.model.script({ status: 503, headers: { "retry-after": "30" } }, { reply: { content: [text("later")] } });
    await createAndStart(t, "hello");
    const before = await waitForAttempts(t, 1);
    await t.stub.pause();
    await t.stub.resume();
    const after = await runState(t);
    expect(after).toMatchObject({ status: "running", attempts: 1, next_attempt_at: before.next_attempt_at });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await t.model.requests()).toHaveLength(1);
    await t.stub.cancel();
  });
});
