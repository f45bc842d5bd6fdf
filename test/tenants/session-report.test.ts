import { describe, expect, it } from "vitest";
import { BASE_MS, DAY_MS, expectIndexRejects, freshTenant, indexOf, report } from "./helpers";

const usage = (input_tokens: number, output_tokens: number, steps: number, cache_read_tokens = 0, cache_write_tokens = 0) => ({
  input_tokens,
  output_tokens,
  cache_read_tokens,
  cache_write_tokens,
  steps,
});

describe("reportSession", () => {
  it("inserts a session it does not know yet", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    expect(await index.getSessionSummary(tenantId, "ses_1")).toBeNull();
    expect(await index.reportSession(tenantId, report("ses_1", { status: "running", revision: 3 }))).toMatchObject({
      applied: true,
      suspended: false,
    });
    expect(await index.getSessionSummary(tenantId, "ses_1")).toMatchObject({ id: "ses_1", status: "running" });
  });

  it("applies newer revisions and ignores older or repeated ones", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.reportSession(tenantId, report("ses_1", { status: "running", revision: 2 }));
    expect(await index.reportSession(tenantId, report("ses_1", { status: "idle", revision: 1 }))).toMatchObject({ applied: false });
    expect(await index.reportSession(tenantId, report("ses_1", { status: "paused", revision: 2 }))).toMatchObject({ applied: false });
    expect((await index.getSessionSummary(tenantId, "ses_1"))?.status).toBe("running");
    expect(await index.reportSession(tenantId, report("ses_1", { status: "done", stop_reason: "end_turn", revision: 5 }))).toMatchObject({
      applied: true,
    });
    expect(await index.getSessionSummary(tenantId, "ses_1")).toMatchObject({ status: "done", stop_reason: "end_turn" });
  });

  it("adds only the difference from the last totals to the day's usage", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.reportSession(tenantId, report("ses_1", { revision: 1, usage: usage(100, 50, 1) }));
    await index.reportSession(tenantId, report("ses_1", { revision: 2, usage: usage(300, 80, 2), updatedMs: BASE_MS + 60_000 }));
    // A repeat and a stale report change nothing.
    await index.reportSession(tenantId, report("ses_1", { revision: 2, usage: usage(300, 80, 2) }));
    await index.reportSession(tenantId, report("ses_1", { revision: 1, usage: usage(900, 900, 9) }));
    await index.reportSession(tenantId, report("ses_2", { revision: 1, usage: usage(20, 0, 1) }));
    expect(await index.tokensToday(tenantId, BASE_MS)).toBe(400);
    const [today] = await index.usage(tenantId, { days: 1, now: BASE_MS });
    expect(today).toEqual({
      day: "2030-03-10",
      input_tokens: 320,
      output_tokens: 80,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      steps: 3,
      sessions_created: 2,
    });
  });

  it("counts prompt-cache reads and writes in the session, the day and the daily budget", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.reportSession(tenantId, report("ses_1", { revision: 1, usage: usage(100, 50, 1, 1_000, 200) }));
    await index.reportSession(tenantId, report("ses_1", { revision: 2, usage: usage(150, 60, 2, 3_000, 200) }));
    expect(await index.tokensToday(tenantId, BASE_MS)).toBe(150 + 60 + 3_000 + 200);
    expect((await index.getSessionSummary(tenantId, "ses_1"))?.usage).toEqual({
      steps: 2,
      input_tokens: 150,
      output_tokens: 60,
      cache_read_tokens: 3_000,
      cache_write_tokens: 200,
    });
    const [today] = await index.usage(tenantId, { days: 1, now: BASE_MS });
    expect(today).toMatchObject({ cache_read_tokens: 3_000, cache_write_tokens: 200 });
  });

  it("reads a report without cache counts, from a session that has not run since they existed, as none", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    const old = report("ses_old", { revision: 1 });
    await index.reportSession(tenantId, { ...old, usage: { steps: 1, input_tokens: 10, output_tokens: 5 } as never });
    expect((await index.getSessionSummary(tenantId, "ses_old"))?.usage).toMatchObject({
      input_tokens: 10,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    });
  });

  it("counts usage on the UTC day of the report, and sessions on the day they were created", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.reportSession(tenantId, report("ses_1", { revision: 1, usage: usage(100, 10, 1) }));
    await index.reportSession(tenantId, report("ses_1", { revision: 2, usage: usage(250, 30, 2), updatedMs: BASE_MS + DAY_MS }));
    await index.reportSession(tenantId, report("ses_2", { revision: 1, createdMs: BASE_MS + DAY_MS, usage: usage(5, 5, 1) }));
    expect(await index.tokensToday(tenantId, BASE_MS)).toBe(110);
    expect(await index.tokensToday(tenantId, BASE_MS + DAY_MS)).toBe(180);
    expect(await index.tokensToday(tenantId, BASE_MS + 2 * DAY_MS)).toBe(0);
    expect(await index.usage(tenantId, { days: 3, now: BASE_MS + DAY_MS })).toEqual([
      {
        day: "2030-03-11",
        input_tokens: 155,
        output_tokens: 25,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        steps: 2,
        sessions_created: 1,
      },
      {
        day: "2030-03-10",
        input_tokens: 100,
        output_tokens: 10,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        steps: 1,
        sessions_created: 1,
      },
      { day: "2030-03-09", input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, steps: 0, sessions_created: 0 },
    ]);
  });

  it("refuses a malformed report", async () => {
    const tenantId = freshTenant();
    await expectIndexRejects(tenantId, (index) => index.reportSession(tenantId, report("ses_1", { revision: -1 })), /revision/);
    await expectIndexRejects(
      tenantId,
      (index) => index.reportSession(tenantId, { ...report("ses_1"), created_at: "yesterday" }),
      /created_at/,
    );
    await expectIndexRejects(
      tenantId,
      (index) => index.reportSession(tenantId, report("ses_1", { usage: usage(-1, 0, 0) })),
      /input_tokens/,
    );
  });
});

describe("removeSession", () => {
  it("deletes the row but keeps the usage history, and ignores later reports for it", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    // Created before its removal, as every report of the removed session is.
    const createdMs = Date.now() - 60_000;
    await index.reportSession(tenantId, report("ses_1", { revision: 1, usage: usage(100, 10, 1), createdMs, updatedMs: BASE_MS }));
    expect(await index.removeSession(tenantId, "ses_1")).toBe(true);
    expect(await index.removeSession(tenantId, "ses_1")).toBe(false);
    expect(await index.getSessionSummary(tenantId, "ses_1")).toBeNull();
    expect(
      await index.reportSession(tenantId, report("ses_1", { revision: 2, usage: usage(500, 50, 3), createdMs, updatedMs: BASE_MS })),
    ).toMatchObject({ applied: false });
    expect(await index.getSessionSummary(tenantId, "ses_1")).toBeNull();
    expect(await index.tokensToday(tenantId, BASE_MS)).toBe(110);
    expect((await index.listSessions(tenantId, { limit: 10 })).data).toEqual([]);
  });

  it("takes a session created under the id after the removal as a new one", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.reportSession(tenantId, report("ses_1", { revision: 5, createdMs: Date.now() - 60_000 }));
    expect(await index.removeSession(tenantId, "ses_1")).toBe(true);
    // A chat started again after its session was deleted: the same id, a later creation, revisions from 1.
    expect(await index.reportSession(tenantId, report("ses_1", { revision: 1, createdMs: Date.now() + 1_000 }))).toMatchObject({
      applied: true,
    });
    expect((await index.listSessions(tenantId, { limit: 10 })).data.map((session) => session.id)).toEqual(["ses_1"]);
  });
});

describe("counts", () => {
  it("counts sessions by status, with zero for the statuses nobody is in", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.reportSession(tenantId, report("ses_1", { status: "running" }));
    await index.reportSession(tenantId, report("ses_2", { status: "running" }));
    await index.reportSession(tenantId, report("ses_3", { status: "done" }));
    expect(await index.counts(tenantId)).toEqual({
      idle: 0,
      queued: 0,
      running: 2,
      waiting_approval: 0,
      waiting_tool_output: 0,
      waiting_subagents: 0,
      waiting_budget: 0,
      paused: 0,
      done: 1,
      failed: 0,
      cancelled: 0,
    });
  });
});
