import { afterEach, describe, expect, it, vi } from "vitest";
import { createAndStart, newTestSession, waitForStatus } from "../support/agent-session";

const text = (t: string) => ({ type: "text", text: t });

/** The structured lines written for one session, parsed. */
function captureLines(sessionId: string): () => Record<string, unknown>[] {
  const spies = [vi.spyOn(console, "log"), vi.spyOn(console, "warn"), vi.spyOn(console, "error")];
  return () =>
    spies
      .flatMap((spy) => spy.mock.calls.map((args, i) => [spy.mock.invocationCallOrder[i]!, String(args[0])] as const))
      .sort(([a], [b]) => a - b)
      .map(([, line]) => line)
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.session_id === sessionId);
}

afterEach(() => vi.restoreAllMocks());

describe("the run's log lines", () => {
  it("writes one JSON line at the start, at each retry and at the end, with tenant, session, step, duration and outcome", async () => {
    const t = newTestSession();
    await t.model.script(
      { status: 503, headers: { "retry-after": "0" }, body: { error: { type: "overloaded_error", message: "busy" } } },
      { reply: { content: [text("hi")] } },
    );
    const lines = captureLines(t.sessionId);
    await createAndStart(t, "hello");
    await waitForStatus(t, ["done"], 15_000);
    const events = lines().map((line) => line.event);
    expect(events.filter((e) => e === "run_started" || e === "unit_retry" || e === "run_ended")).toEqual([
      "run_started",
      "unit_retry",
      "run_ended",
    ]);
    const byEvent = Object.fromEntries(lines().map((line) => [line.event, line]));
    expect(byEvent.run_started).toMatchObject({ level: "info", tenant_id: t.tenantId, session_id: t.sessionId });
    expect(byEvent.unit_retry).toMatchObject({
      level: "warn",
      tenant_id: t.tenantId,
      unit: "model",
      step: 1,
      outcome: "retry",
      attempts: 1,
    });
    expect(byEvent.unit_retry!.duration_ms).toEqual(expect.any(Number));
    expect(byEvent.run_ended).toMatchObject({ level: "info", tenant_id: t.tenantId, status: "done", stop_reason: "end_turn", steps: 1 });
    expect(byEvent.run_ended!.duration_ms).toBeGreaterThanOrEqual(0);
  });
});
