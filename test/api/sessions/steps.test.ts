import { describe, expect, it } from "vitest";
import type { Step } from "../../../src/session-config/types";
import { call } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { caller, createSession, getJson, text, toolUse, waitForStatus } from "./helpers";

interface StepPage {
  data: Step[];
  next_cursor: string | null;
}

describe("GET /v1/sessions/{id}/steps", () => {
  it("lists each unit with its kind, times, tokens and outcome, oldest first", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script(
      { status: 503, body: { error: { type: "overloaded_error", message: "busy" } }, headers: { "retry-after": "0" } },
      { reply: { content: [toolUse("toolu_s1", "get_time")], usage: { input_tokens: 12, output_tokens: 3 } } },
      { reply: { content: [text("noon")], usage: { input_tokens: 20, output_tokens: 4 } } },
    );
    const session = await createSession(who, { input: "time?", model: model.key, tools: [{ type: "builtin", name: "get_time" }] });
    await waitForStatus(who, session.id, ["done"], 15_000);

    const page = await getJson<StepPage>(who, `/v1/sessions/${session.id}/steps`);
    expect(page.next_cursor).toBeNull();
    expect(page.data.map((s) => [s.kind, s.outcome, s.input_tokens, s.output_tokens])).toEqual([
      ["model", "retry", 0, 0],
      ["model", "ok", 12, 3],
      ["tools", "ok", null, null],
      ["model", "ok", 20, 4],
    ]);
    for (const [i, step] of page.data.entries()) {
      expect(step.seq).toBe(page.data[0]!.seq + i);
      expect(step.duration_ms).toBe(Date.parse(step.ended_at) - Date.parse(step.started_at));
      expect(step.queued_ms).toBeGreaterThanOrEqual(0);
      if (i > 0) expect(Date.parse(step.started_at)).toBeGreaterThanOrEqual(Date.parse(page.data[i - 1]!.ended_at));
    }
    // The retry's backoff is queue time of the unit after it.
    expect(page.data[1]!.queued_ms).toBe(Date.parse(page.data[1]!.started_at) - Date.parse(page.data[0]!.ended_at));

    const first = await getJson<StepPage>(who, `/v1/sessions/${session.id}/steps?limit=3`);
    expect(first.data).toHaveLength(3);
    const rest = await getJson<StepPage>(who, `/v1/sessions/${session.id}/steps?limit=3&cursor=${first.next_cursor}`);
    expect([...first.data, ...rest.data]).toEqual(page.data);
    expect(rest.next_cursor).toBeNull();
  });

  it("answers 404 for another tenant's session and 400 for a cursor it did not make", async () => {
    const owner = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [text("hi")] } });
    const session = await createSession(owner, { input: "hi", model: model.key });
    const stranger = await caller();
    expect((await call(`/v1/sessions/${session.id}/steps`, { headers: stranger.headers })).status).toBe(404);
    expect((await call(`/v1/sessions/${session.id}/steps?cursor=abc`, { headers: owner.headers })).status).toBe(400);
  });
});
