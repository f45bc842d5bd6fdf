import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { tenantIndexStub } from "../../src/objects";
import type { RunState } from "../../src/sessions/object/store/store";
import { describe, expect, it } from "vitest";
import { BUILTIN_DEFAULT_LIMITS } from "../../src/limits";
import { alarmAt, createAndStart, messages, newTestSession, runState, waitForStatus } from "../support/agent-session";

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const toolUse = (id: string) => ({ type: "tool_use", id, name: "get_time", input: {} });

describe("run limits", () => {
  it("ends the run done with step_limit after max_steps_per_run model calls", async () => {
    const t = newTestSession();
    await t.model.script(
      { reply: { content: [toolUse("toolu_s1")] } },
      { reply: { content: [toolUse("toolu_s2")] } },
      { reply: { content: [toolUse("toolu_s3")] } },
    );
    await createAndStart(t, "loop", { tools: [{ type: "builtin", name: "get_time" }], limits: { max_steps_per_run: 2 } });
    const done = await waitForStatus(t, ["done", "failed"]);
    expect(done).toMatchObject({ status: "done", stop_reason: "step_limit", usage: { steps: 2 } });
    expect(await t.model.requests()).toHaveLength(2);
    // The last response's tool calls still got their results: no tool_use is left without one.
    expect((await messages(t)).map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
  });

  it("waits in waiting_budget once the session budget is used, capping max_tokens, and goes on when it is raised", async () => {
    const t = newTestSession();
    const usage = { input_tokens: 60, output_tokens: 10 };
    await t.model.script(
      { reply: { content: [toolUse("toolu_t1")], usage } },
      { reply: { content: [toolUse("toolu_t2")], usage } },
      { reply: { content: [toolUse("toolu_t3")], usage } },
    );
    await createAndStart(t, "spend", {
      tools: [{ type: "builtin", name: "get_time" }],
      limits: { max_tokens_per_session: 100, max_tokens_per_call: 50 },
    });
    const waiting = await waitForStatus(t, ["waiting_budget", "done", "failed"]);
    expect(waiting).toMatchObject({
      status: "waiting_budget",
      stop_reason: null,
      usage: { steps: 2, input_tokens: 120, output_tokens: 20 },
    });
    const requests = await t.model.requests();
    expect(requests.map((r) => (r.body as { max_tokens: number }).max_tokens)).toEqual([50, 30]);
    // Raised: the run goes on where it stopped (the third scripted call, then an answer), and ends.
    await t.model.script({ reply: { content: [{ type: "text", text: "done" }], usage: { input_tokens: 5, output_tokens: 5 } } });
    await t.stub.setLimits({ max_tokens_per_session: 1000 });
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done", stop_reason: "end_turn", usage: { steps: 4 } });
    expect((await t.model.requests()).map((r) => (r.body as { max_tokens: number }).max_tokens)).toEqual([50, 30, 50, 50]);
  });

  it("starts a new run with a fresh step count", async () => {
    const t = newTestSession();
    await t.model.script({ reply: { content: [toolUse("toolu_r1")] } }, { reply: { content: [toolUse("toolu_r2")] } });
    await createAndStart(t, "one", { tools: [{ type: "builtin", name: "get_time" }], limits: { max_steps_per_run: 1 } });
    expect(await waitForStatus(t, ["done"])).toMatchObject({ stop_reason: "step_limit" });
    await t.stub.start("two");
    expect(await waitForStatus(t, ["done"])).toMatchObject({ stop_reason: "step_limit", usage: { steps: 2 } });
    // Two user turns in a row are joined for the provider, which wants alternating roles.
    const second = (await t.model.requests())[1]!.body as { messages: { role: string }[] };
    expect(second.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
  });
});

describe("limits capped at start", () => {
  it("lowers the session's limits to the cap passed with start, for this and later runs", async () => {
    const t = newTestSession();
    await t.model.script({ reply: { content: [toolUse("toolu_c1")] } }, { reply: { content: [toolUse("toolu_c2")] } });
    await createAndStart(t, "one", { tools: [{ type: "builtin", name: "get_time" }] });
    await t.stub.cancel();
    const cap = { ...BUILTIN_DEFAULT_LIMITS, max_steps_per_run: 1, max_tokens_per_day: 1000 };
    expect(await t.stub.start("two", cap)).toMatchObject({
      ok: true,
      value: { limits: { max_steps_per_run: 1, max_tokens_per_day: 1000 } },
    });
    expect(await waitForStatus(t, ["done"])).toMatchObject({ stop_reason: "step_limit" });
    // A looser cap later does not raise them again.
    expect(await t.stub.start("three", BUILTIN_DEFAULT_LIMITS)).toMatchObject({ ok: true, value: { limits: { max_steps_per_run: 1 } } });
    await t.stub.cancel();
  });
});

describe("the tenant's daily token budget", () => {
  it("waits in waiting_budget once the tenant's tokens today reach max_tokens_per_day, until the next UTC midnight", async () => {
    const t = newTestSession();
    const usage = { input_tokens: 10, output_tokens: 5 };
    await t.model.script(
      { reply: { content: [toolUse("toolu_d1")], usage } },
      { reply: { content: [toolUse("toolu_d2")], usage } },
      { reply: { content: [toolUse("toolu_d3")], usage } },
    );
    await createAndStart(t, "spend the day", { tools: [{ type: "builtin", name: "get_time" }], limits: { max_tokens_per_day: 25 } });
    const waiting = await waitForStatus(t, ["waiting_budget", "done", "failed"]);
    expect(waiting).toMatchObject({ status: "waiting_budget", usage: { steps: 2, input_tokens: 20, output_tokens: 10 } });
    expect(await t.model.requests()).toHaveLength(2);
    // Its alarm is set for the next UTC midnight, when the daily budget renews (once the report owed is delivered).
    const midnight = (Math.floor(Date.now() / 86_400_000) + 1) * 86_400_000;
    await until(async () => (await alarmAt(t)) === midnight && (await runState(t)).budget_wait?.resume_at === midnight);
    // Midnight comes: today's tokens become yesterday's at the index, and the alarm fires at the renewal.
    await runInDurableObject(tenantIndexStub(env, t.tenantId), (_, state) => {
      state.storage.sql.exec(`UPDATE usage_daily SET day = '2000-01-01'`);
    });
    await runInDurableObject(t.stub, (_, state) => {
      const run = state.storage.kv.get<RunState>("run")!;
      state.storage.kv.put("run", { ...run, budget_wait: { ...run.budget_wait!, resume_at: Date.now() - 1 } });
    });
    await t.model.script({ reply: { content: [{ type: "text", text: "a new day" }], usage } });
    await runDurableObjectAlarm(t.stub);
    // The call it stopped before (the third scripted one), then the answer.
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done", stop_reason: "end_turn", usage: { steps: 4 } });
  });
});
