import { describe, expect, it } from "vitest";
import { RUN_RESERVATION_TTL_MS, RUN_SLOT_RETRY_AFTER_SECONDS, runSlotRetryAfter } from "../../src/tenants/run-slots";
import { MAX_MCP_BATCH_MESSAGES } from "../../src/limits";
import { BASE_MS, DAY_MS, expectIndexRejects, freshTenant, indexOf, report } from "./helpers";

const MAX = 10;

async function acquireMany(tenantId: string, count: number, now: number): Promise<void> {
  const index = indexOf(tenantId);
  for (let i = 0; i < count; i++) expect(await index.acquireRun(tenantId, `ses_${i}`, MAX, now)).toEqual({ ok: true });
}

describe("acquireRun", () => {
  it("admits ten runs and refuses the eleventh with a retry hint", async () => {
    const tenantId = freshTenant();
    await acquireMany(tenantId, MAX, BASE_MS);
    const refused = await indexOf(tenantId).acquireRun(tenantId, "ses_extra", MAX, BASE_MS + 1_000);
    expect(refused).toEqual({ ok: false, code: "busy", retryAfterSeconds: RUN_SLOT_RETRY_AFTER_SECONDS });
  });

  it("does not count a session's own reservation or run against it", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await acquireMany(tenantId, MAX, BASE_MS);
    expect(await index.acquireRun(tenantId, "ses_3", MAX, BASE_MS + 1_000)).toEqual({ ok: true });
    await index.reportSession(tenantId, report("ses_3", { status: "running", revision: 1 }));
    expect(await index.acquireRun(tenantId, "ses_3", MAX, BASE_MS + 2_000)).toEqual({ ok: true });
  });

  it("counts a session that is both running and reserved once", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.reportSession(tenantId, report("ses_a", { status: "running" }));
    expect(await index.acquireRun(tenantId, "ses_a", 2, BASE_MS)).toEqual({ ok: true });
    expect(await index.acquireRun(tenantId, "ses_b", 2, BASE_MS)).toEqual({ ok: true });
    expect((await index.acquireRun(tenantId, "ses_c", 2, BASE_MS)).ok).toBe(false);
  });

  it("lets reservations expire after their time to live", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await acquireMany(tenantId, MAX, BASE_MS);
    expect((await index.acquireRun(tenantId, "ses_extra", MAX, BASE_MS + RUN_RESERVATION_TTL_MS - 1)).ok).toBe(false);
    expect(await index.acquireRun(tenantId, "ses_extra", MAX, BASE_MS + RUN_RESERVATION_TTL_MS)).toEqual({ ok: true });
  });

  it("holds a slot for every running session only, and frees it when the session finishes", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    for (let i = 0; i < MAX; i++) await index.reportSession(tenantId, report(`ses_${i}`, { status: "running", revision: 1 }));
    for (const status of ["idle", "queued", "waiting_approval", "waiting_tool_output", "paused", "done"] as const) {
      await index.reportSession(tenantId, report(`ses_${status}`, { status }));
    }
    // Long after any reservation would have expired: only running sessions hold slots.
    const later = BASE_MS + 10 * RUN_RESERVATION_TTL_MS;
    expect((await index.acquireRun(tenantId, "ses_extra", MAX, later)).ok).toBe(false);
    await index.reportSession(tenantId, report("ses_4", { status: "done", stop_reason: "end_turn", revision: 2 }));
    // The freed slot goes to the queued session first, not to a newcomer.
    expect((await index.acquireRun(tenantId, "ses_extra", MAX, later)).ok).toBe(false);
    expect(await index.acquireRun(tenantId, "ses_queued", MAX, later)).toEqual({ ok: true });
  });

  it("gives free slots to queued sessions in the order they queued", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.reportSession(tenantId, report("ses_busy", { status: "running" }));
    await index.reportSession(tenantId, report("ses_late", { status: "queued", createdMs: BASE_MS, updatedMs: BASE_MS + 200 }));
    await index.reportSession(tenantId, report("ses_early", { status: "queued", createdMs: BASE_MS, updatedMs: BASE_MS + 100 }));
    await index.reportSession(tenantId, report("ses_busy", { status: "done", stop_reason: "end_turn", revision: 2 }));
    const now = BASE_MS + 1_000;
    expect((await index.acquireRun(tenantId, "ses_late", 1, now)).ok).toBe(false);
    expect(await index.acquireRun(tenantId, "ses_early", 1, now)).toEqual({ ok: true });
    expect(await index.counts(tenantId)).toMatchObject({ queued: 2 });
  });

  it("ends a reservation when the session reports", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await acquireMany(tenantId, MAX, BASE_MS);
    // The start for ses_0 failed and the session object reported it idle: its slot is free at once.
    await index.reportSession(tenantId, report("ses_0", { status: "idle", revision: 1 }));
    expect(await index.acquireRun(tenantId, "ses_extra", MAX, BASE_MS + 1)).toEqual({ ok: true });
  });
});

describe("runSlotRetryAfter", () => {
  it.each([
    [null, RUN_SLOT_RETRY_AFTER_SECONDS],
    [BASE_MS + 2_500, 3],
    [BASE_MS + 60_000, RUN_SLOT_RETRY_AFTER_SECONDS],
    [BASE_MS, 1],
  ])("with the first reservation ending at %s answers %s seconds", (expiry, seconds) => {
    expect(runSlotRetryAfter(BASE_MS, expiry)).toBe(seconds);
  });
});

describe("admitRun", () => {
  const input = (sessionId: string, maxTokensPerDay: number | null, now = BASE_MS) => ({
    sessionId,
    maxConcurrent: MAX,
    maxTokensPerDay,
    now,
  });

  it("reserves a slot as acquireRun does while today's budget lasts, or without a budget", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.reportSession(
      tenantId,
      report("ses_used", {
        revision: 1,
        usage: { steps: 1, input_tokens: 60, output_tokens: 39, cache_read_tokens: 0, cache_write_tokens: 0 },
      }),
    );
    expect(await index.admitRun(tenantId, input("ses_a", 100))).toEqual({ ok: true });
    expect(await index.admitRun(tenantId, input("ses_b", null))).toEqual({ ok: true });
    await acquireMany(tenantId, MAX - 2, BASE_MS);
    expect(await index.admitRun(tenantId, input("ses_c", 100))).toMatchObject({ ok: false, code: "busy" });
  });

  it("refuses once today's tokens reach the budget, until the next UTC midnight, and takes no slot", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.reportSession(
      tenantId,
      report("ses_used", {
        revision: 1,
        usage: { steps: 1, input_tokens: 60, output_tokens: 40, cache_read_tokens: 0, cache_write_tokens: 0 },
      }),
    );
    const now = BASE_MS + 1_500;
    const secondsToMidnight = Math.ceil((Math.floor(now / DAY_MS + 1) * DAY_MS - now) / 1000);
    expect(await index.admitRun(tenantId, input("ses_a", 100, now))).toEqual({
      ok: false,
      code: "budget_used",
      retryAfterSeconds: secondsToMidnight,
    });
    await acquireMany(tenantId, MAX, now);
  });
});

describe("cancellableSessions", () => {
  it("answers the ids with a run going or a start admitted, in one call", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.reportSession(tenantId, report("ses_running", { status: "running" }));
    await index.reportSession(tenantId, report("ses_waiting", { status: "waiting_approval" }));
    await index.reportSession(tenantId, report("ses_done", { status: "done" }));
    // Admitted, its first report not come yet: only its reservation stands for it.
    expect(await index.acquireRun(tenantId, "ses_admitted", MAX, Date.now())).toEqual({ ok: true });
    const named = ["ses_running", "ses_waiting", "ses_done", "ses_admitted", "ses_never"];
    expect((await index.cancellableSessions(tenantId, named)).sort()).toEqual(["ses_admitted", "ses_running", "ses_waiting"]);
    expect(await index.cancellableSessions(tenantId, [])).toEqual([]);
  });

  it("refuses more ids than a batch may hold", async () => {
    const tenantId = freshTenant();
    const ids = Array.from({ length: MAX_MCP_BATCH_MESSAGES + 1 }, (_, i) => `ses_${i}`);
    await expectIndexRejects(tenantId, (index) => index.cancellableSessions(tenantId, ids), /at most 32 ids/);
  });
});
