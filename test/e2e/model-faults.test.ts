/**
 * Scenario 5: the model provider misbehaves. Retryable faults (429, 5xx, a body that is not
 * JSON, a reset connection, a call slower than the timeout) are retried with backoff and the
 * run ends done with one answer saved; a 400 fails the run at once with its status and error type (never the provider's text);
 * too many faults fail it. Nothing of a failed call is ever half-saved. Every case runs as its
 * own session, all at once, so the backoffs overlap.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Session } from "./support/api-client";
import { historyProblems, textOf } from "./support/history";
import type { MockQueue, ModelStep, RecordedRequest } from "./support/mock-process";
import { say, waitForFinal } from "./support/scenario";
import { type Stack, startStack, uniqueName } from "./support/stack";

/** The model timeout for this process; production's is 110 s, far too slow for a test. */
const MODEL_TIMEOUT_MS = 2_000;
/** Slower than the timeout, so only the timeout ends the call. */
const SLOW_ANSWER_MS = 6_000;
const RETRY_AFTER_S = 2;
/** src/limits.ts MAX_ATTEMPTS. */
const MAX_ATTEMPTS = 5;
/** Five attempts back off about 1 + 2 + 4 + 8 s at most. */
const RUN_TIMEOUT_MS = 60_000;
/** One successful call of the mock: its default usage. */
/** A session with no sub-agents still shows their (empty) sum. */
const NO_SUBAGENTS = { subagents: { steps: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 } };
const ONE_CALL_USAGE = { steps: 1, input_tokens: 10, output_tokens: 5, cache_read_tokens: 0, cache_write_tokens: 0, ...NO_SUBAGENTS };
const NO_USAGE = { steps: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, ...NO_SUBAGENTS };

const PROVIDER_MESSAGE = "max_tokens: 999999 > 8192, which is the maximum allowed";

const CASES = {
  rateLimited: [{ status: 429, headers: { "retry-after": String(RETRY_AFTER_S) } }, say("after the rate limit")],
  unavailable: [{ status: 503, repeat: 3 }, say("after three 503s")],
  badRequest: [
    { status: 400, body: { type: "error", error: { type: "invalid_request_error", message: PROVIDER_MESSAGE } } },
    say("never asked"),
  ],
  notJson: [{ invalid_json: true }, say("after a garbled body")],
  reset: [{ reset: true }, say("after a reset")],
  tooSlow: [say("an answer after the timeout", SLOW_ANSWER_MS), say("in time")],
  alwaysUnavailable: [{ status: 503, repeat: MAX_ATTEMPTS + 1 }],
} satisfies Record<string, ModelStep[]>;
type CaseName = keyof typeof CASES;

interface Outcome {
  session: Session;
  model: MockQueue<ModelStep>;
  requests: RecordedRequest[];
  texts: string[];
  problems: string[];
}

describe("model faults", () => {
  let stack: Stack;
  const outcomes = new Map<CaseName, Promise<Outcome>>();

  beforeAll(async () => {
    stack = await startStack({ vars: { MODEL_TIMEOUT_MS: String(MODEL_TIMEOUT_MS) } });
    const client = await stack.client(uniqueName("tenant"));
    for (const [name, steps] of Object.entries(CASES) as [CaseName, ModelStep[]][]) {
      const model = stack.mock.model(uniqueName(name));
      await model.script(...steps);
      const created = await client.createSession({ input: `case ${name}`, model: model.key });
      const outcome = (async (): Promise<Outcome> => {
        const session = await waitForFinal(client, created.id, RUN_TIMEOUT_MS);
        const messages = await client.messages(created.id);
        return {
          session,
          model,
          requests: await model.requests(),
          texts: messages.filter((m) => m.role === "assistant").map(textOf),
          problems: historyProblems(messages, await client.toolCalls(created.id)),
        };
      })();
      outcome.catch(() => undefined); // awaited by its own test; never an unhandled rejection
      outcomes.set(name, outcome);
    }
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  const outcome = (name: CaseName) => outcomes.get(name)!;

  it("waits at least Retry-After after a 429, then saves the answer once", async () => {
    const { session, requests, texts, problems } = await outcome("rateLimited");
    expect(session.status, stack.logs()).toBe("done");
    expect(requests).toHaveLength(2);
    expect(requests[1]!.received_at - requests[0]!.answered_at!).toBeGreaterThanOrEqual(RETRY_AFTER_S * 1000);
    expect(texts).toEqual(["after the rate limit"]);
    expect(session.usage).toEqual(ONE_CALL_USAGE);
    expect(problems).toEqual([]);
  });

  it("retries 503s with growing delays and saves the answer once", async () => {
    const { session, requests, texts } = await outcome("unavailable");
    expect(session.status, stack.logs()).toBe("done");
    expect(requests).toHaveLength(4);
    const delays = requests.slice(1).map((r, i) => r.received_at - requests[i]!.answered_at!);
    // Backoff with jitter over the upper half: at least 0.5 s, 1 s, 2 s.
    delays.forEach((delay, i) => expect(delay, `delays ${delays.join(", ")}`).toBeGreaterThanOrEqual(500 * 2 ** i));
    expect(texts).toEqual(["after three 503s"]);
    expect(session.usage).toEqual(ONE_CALL_USAGE);
  });

  it("fails at once on a 400 with the status and error type in error, never the provider's text", async () => {
    const { session, model, texts } = await outcome("badRequest");
    expect(session.status, stack.logs()).toBe("failed");
    expect(session.stop_reason).toBe("model_error");
    expect(session.error).toBe("model provider answered 400 (invalid_request_error)");
    expect(JSON.stringify(session)).not.toContain(PROVIDER_MESSAGE);
    // Read again after the earlier cases' seconds of waiting: no retry came later either.
    expect(await model.requests()).toHaveLength(1);
    expect(texts).toEqual([]);
    expect(session.usage).toEqual(NO_USAGE);
  });

  it("retries a body that is not JSON and saves only the good answer", async () => {
    const { session, requests, texts } = await outcome("notJson");
    expect(session.status, stack.logs()).toBe("done");
    expect(requests).toHaveLength(2);
    expect(texts).toEqual(["after a garbled body"]);
    expect(session.usage).toEqual(ONE_CALL_USAGE);
  });

  it("retries after the connection is reset", async () => {
    const { session, requests, texts } = await outcome("reset");
    expect(session.status, stack.logs()).toBe("done");
    expect(requests).toHaveLength(2);
    expect(requests[0]!.answered_at).toBeUndefined();
    expect(texts).toEqual(["after a reset"]);
  });

  it("abandons a call slower than the model timeout and never saves its late answer", async () => {
    const { session, requests, texts } = await outcome("tooSlow");
    expect(session.status, stack.logs()).toBe("done");
    expect(requests).toHaveLength(2);
    const first = requests[0]!;
    expect(first.answered_at, "the slow answer was never sent: the platform hung up first").toBeUndefined();
    const heldFor = first.disconnected_at! - first.received_at;
    // The platform's deadline starts as it sends, before the mock receives: on a busy machine
    // that hop alone can take a few hundred ms, so only a hang-up far too early is a failure.
    expect(heldFor).toBeGreaterThanOrEqual(MODEL_TIMEOUT_MS - 500);
    expect(heldFor).toBeLessThan(SLOW_ANSWER_MS);
    expect(texts).toEqual(["in time"]);
    expect(session.usage).toEqual(ONE_CALL_USAGE);
  });

  it(`fails after ${MAX_ATTEMPTS} failed attempts with nothing saved`, async () => {
    const { session, requests, texts } = await outcome("alwaysUnavailable");
    expect(session.status, stack.logs()).toBe("failed");
    expect(session.stop_reason).toBe("model_error");
    expect(session.error).toContain(`after ${MAX_ATTEMPTS} attempts`);
    expect(requests).toHaveLength(MAX_ATTEMPTS);
    expect(texts).toEqual([]);
    expect(session.usage).toEqual(NO_USAGE);
  });
});
