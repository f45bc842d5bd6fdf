/**
 * The schedule routes through the public API: what a schedule looks like, every 400 its body can
 * earn (each at its field), the tenant's max_schedules, pause and resume, and the ownership rules.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub } from "../../../src/objects";
import { call, callJson, readProblem } from "../../support/api";
import { bearer, freshTenant } from "../../support/tokens";
import { caller, createSession } from "../sessions/helpers";
import { createSchedule, firingsOf, patch, type Schedule } from "./helpers";

/** Far enough from now that no test in this file sees a firing. */
const YEARLY = "0 0 1 1 *";

async function problemAt(res: Response): Promise<{ status: number; paths: string[] }> {
  const problem = await readProblem(res);
  return { status: res.status, paths: (problem.errors ?? []).map((e) => e.path).sort() };
}

describe("POST /v1/schedules", () => {
  it("creates a session schedule, 201 with Location, with its next slot in its zone", async () => {
    const alice = await caller(undefined, undefined, "alice");
    const body = { cron: "0 9 * * MON-FRI", timezone: "europe/paris", session: { input: "daily report", metadata: { job: "report" } } };
    const res = await callJson("/v1/schedules", "POST", body, alice.headers);
    expect(res.status).toBe(201);
    const schedule = (await res.json()) as Schedule;
    expect(schedule.id).toMatch(/^sch_[A-Za-z0-9_-]{24}$/);
    expect(res.headers.get("Location")).toBe(`/v1/schedules/${schedule.id}`);
    expect(schedule).toMatchObject({
      tenant_id: alice.tenantId,
      created_by: "alice",
      cron: "0 9 * * MON-FRI",
      timezone: "Europe/Paris",
      paused: false,
      status: "active",
      disabled_reason: null,
      disabled_at: null,
      session: { input: "daily report", metadata: { job: "report" } },
      message: null,
      last_fired_at: null,
    });
    // 09:00 in Paris is 07:00 or 08:00 UTC, on a weekday.
    const next = new Date(schedule.next_run_at!);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect([7, 8]).toContain(next.getUTCHours());
    expect([1, 2, 3, 4, 5]).toContain(next.getUTCDay());

    const read = await call(`/v1/schedules/${schedule.id}`, { headers: alice.headers });
    expect(await read.json()).toEqual(schedule);
    const listed = (await (await call("/v1/schedules", { headers: alice.headers })).json()) as {
      data: Schedule[];
      next_cursor: string | null;
    };
    expect(listed).toEqual({ data: [schedule], next_cursor: null });
    expect(await firingsOf(alice.headers, schedule.id)).toEqual([]);
  });

  it("creates a message schedule for a session the caller can see, and one created paused", async () => {
    const who = await caller();
    const session = await createSession(who);
    const schedule = await createSchedule(who, {
      cron: "*/10 * * * * *",
      paused: true,
      message: { session_id: session.id, input: "ping" },
    });
    expect(schedule).toMatchObject({
      status: "paused",
      paused: true,
      next_run_at: null,
      session: null,
      message: { session_id: session.id, input: "ping", if_running: "reject" },
      timezone: "UTC",
    });
  });

  it.each([
    ["neither session nor message", { cron: YEARLY }, ["body.session"]],
    ["both session and message", { cron: YEARLY, session: { input: "x" }, message: { session_id: "ses_x", input: "x" } }, ["body.session"]],
    ["a session body without input", { cron: YEARLY, session: { system: "s" } }, ["body.session.input"]],
    ["a cron expression with a bad field", { cron: "61 * * * *", session: { input: "x" } }, ["body.cron"]],
    ["a cron expression with a year", { cron: "0 0 0 1 1 * 2030", session: { input: "x" } }, ["body.cron"]],
    ["a cron expression that never matches", { cron: "0 0 30 2 *", session: { input: "x" } }, ["body.cron"]],
    ["an unknown time zone", { cron: YEARLY, timezone: "Mars/Olympus", session: { input: "x" } }, ["body.timezone"]],
    ["an unknown field", { cron: YEARLY, session: { input: "x" }, every: "day" }, ["body"]],
    [
      "a session body the create route refuses",
      { cron: YEARLY, session: { input: "x", tools: [{ type: "builtin", name: "nope" }] } },
      ["body.session.tools"],
    ],
    [
      "a notify URL the guard refuses",
      { cron: YEARLY, session: { input: "x", notify_url: "ftp://hooks.example.com/x" } },
      ["body.session.notify_url"],
    ],
    [
      "a session limit above the tenant's",
      { cron: YEARLY, session: { input: "x", limits: { max_steps_per_run: 1001 } } },
      ["body.session.limits.max_steps_per_run"],
    ],
    [
      "a message to a session that does not exist",
      { cron: YEARLY, message: { session_id: "ses_AAAAAAAAAAAAAAAAAAAAAAAA", input: "x" } },
      ["body.message.session_id"],
    ],
    [
      "a message with empty input",
      { cron: YEARLY, message: { session_id: "ses_AAAAAAAAAAAAAAAAAAAAAAAA", input: " " } },
      ["body.message.input"],
    ],
  ])("refuses %s with a 400 at the field", async (_name, body, paths) => {
    const who = await caller();
    const res = await callJson("/v1/schedules", "POST", body, who.headers);
    expect(await problemAt(res)).toEqual({ status: 400, paths });
    const listed = (await (await call("/v1/schedules", { headers: who.headers })).json()) as { data: Schedule[] };
    expect(listed.data).toEqual([]);
  });

  it("refuses a model the tenant may not use at body.session.model, as the create route would", async () => {
    const who = await caller();
    await tenantIndexStub(env, who.tenantId).setAllowedModels(who.tenantId, ["claude-haiku-*"]);
    const res = await callJson("/v1/schedules", "POST", { cron: YEARLY, session: { input: "x", model: "claude-opus-4" } }, who.headers);
    expect(await problemAt(res)).toEqual({ status: 400, paths: ["body.session.model"] });
  });

  it("refuses a message to another member's session as if it did not exist", async () => {
    const tenantId = freshTenant();
    const owner = await caller(tenantId, undefined, "owner");
    const other = await caller(tenantId, undefined, "other");
    const session = await createSession(owner);
    const res = await callJson("/v1/schedules", "POST", { cron: YEARLY, message: { session_id: session.id, input: "x" } }, other.headers);
    expect(await problemAt(res)).toEqual({ status: 400, paths: ["body.message.session_id"] });
  });

  it("keeps the tenant at max_schedules with a 409, and frees a place when one is deleted", async () => {
    const who = await caller();
    await tenantIndexStub(env, who.tenantId).setLimitOverrides(who.tenantId, { max_schedules: 2 });
    const first = await createSchedule(who, { cron: YEARLY, session: { input: "one" } });
    await createSchedule(who, { cron: YEARLY, paused: true, session: { input: "two" } });
    const third = await callJson("/v1/schedules", "POST", { cron: YEARLY, session: { input: "three" } }, who.headers);
    expect(third.status).toBe(409);
    expect((await readProblem(third)).detail).toMatch(/max_schedules/);
    const removed = await call(`/v1/schedules/${first.id}`, { method: "DELETE", headers: who.headers });
    expect(removed.status).toBe(204);
    await createSchedule(who, { cron: YEARLY, session: { input: "three" } });
  });

  it("replays a create with the same Idempotency-Key instead of making a second schedule", async () => {
    const who = await caller();
    const headers = { ...who.headers, "Idempotency-Key": crypto.randomUUID() };
    const body = { cron: YEARLY, session: { input: "once" } };
    const first = await callJson("/v1/schedules", "POST", body, headers);
    const again = await callJson("/v1/schedules", "POST", body, headers);
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(((await again.json()) as Schedule).id).toBe(((await first.json()) as Schedule).id);
    const listed = (await (await call("/v1/schedules", { headers: who.headers })).json()) as { data: Schedule[] };
    expect(listed.data).toHaveLength(1);
  });
});

describe("PATCH /v1/schedules/{id}", () => {
  it("pauses and resumes: no next slot while paused, a slot after now once resumed", async () => {
    const who = await caller();
    const schedule = await createSchedule(who, { cron: "*/30 * * * * *", session: { input: "x" } });
    const paused = await patch(who.headers, schedule.id, { paused: true });
    expect(paused.status).toBe(200);
    expect(await paused.json()).toMatchObject({ paused: true, status: "paused", next_run_at: null });
    const before = Date.now();
    const resumed = (await (await patch(who.headers, schedule.id, { paused: false })).json()) as Schedule;
    expect(resumed).toMatchObject({ paused: false, status: "active" });
    expect(Date.parse(resumed.next_run_at!)).toBeGreaterThan(before - 1000);
  });

  it("retimes a schedule in a new zone, and checks the expression with the stored zone", async () => {
    const who = await caller();
    const schedule = await createSchedule(who, { cron: "0 12 * * *", session: { input: "x" } });
    const moved = (await (await patch(who.headers, schedule.id, { timezone: "asia/tokyo" })).json()) as Schedule;
    expect(moved.timezone).toBe("Asia/Tokyo");
    expect(new Date(moved.next_run_at!).getUTCHours()).toBe(3);
    expect(await problemAt(await patch(who.headers, schedule.id, { cron: "0 25 * * *" }))).toEqual({ status: 400, paths: ["body.cron"] });
    expect(await problemAt(await patch(who.headers, schedule.id, { timezone: "Nowhere/Land" }))).toEqual({
      status: 400,
      paths: ["body.timezone"],
    });
    expect((await patch(who.headers, schedule.id, {})).status).toBe(400);
    expect((await patch(who.headers, schedule.id, { session: { input: "y" } })).status).toBe(400);
  });
});

describe("who sees a schedule", () => {
  const ATTEMPTS: [string, string, (id: string) => string, unknown?][] = [
    ["read", "GET", (id) => `/v1/schedules/${id}`],
    ["list firings", "GET", (id) => `/v1/schedules/${id}/firings`],
    ["pause", "PATCH", (id) => `/v1/schedules/${id}`, { paused: true }],
    ["delete", "DELETE", (id) => `/v1/schedules/${id}`],
  ];

  async function expectNotFound(headers: Record<string, string>, id: string): Promise<void> {
    for (const [name, method, path, body] of ATTEMPTS) {
      const res = body === undefined ? await call(path(id), { method, headers }) : await callJson(path(id), method, body, headers);
      expect(res.status, name).toBe(404);
      expect((await readProblem(res)).detail, name).toBe("No such schedule.");
    }
  }

  it("answers another tenant, even its admin, exactly like a schedule that does not exist", async () => {
    const owner = await caller();
    const schedule = await createSchedule(owner, { cron: YEARLY, session: { input: "x" } });
    const stranger = await bearer({ tenantId: freshTenant(), scopes: ["tenant:admin"] });
    await expectNotFound(stranger, schedule.id);
    await expectNotFound(owner.headers, "sch_AAAAAAAAAAAAAAAAAAAAAAAA");
    await expectNotFound(owner.headers, "not-an-id");
    const read = await call(`/v1/schedules/${schedule.id}`, { headers: owner.headers });
    expect(((await read.json()) as Schedule).paused).toBe(false);
  });

  it("hides a member's schedules from another member, and shows every one to the tenant admin", async () => {
    const tenantId = freshTenant();
    const owner = await caller(tenantId, undefined, "owner");
    const other = await caller(tenantId, undefined, "other");
    const admin = await bearer({ tenantId, subject: "admin", scopes: ["tenant:admin"] });
    const schedule = await createSchedule(owner, { cron: YEARLY, session: { input: "x" } });
    const mine = await createSchedule(other, { cron: YEARLY, session: { input: "y" } });
    await expectNotFound(other.headers, schedule.id);

    const list = async (headers: Record<string, string>, query = "") =>
      ((await (await call(`/v1/schedules${query}`, { headers })).json()) as { data: Schedule[] }).data.map((s) => s.id);
    expect(await list(other.headers)).toEqual([mine.id]);
    expect(await list(other.headers, "?created_by=owner")).toEqual([]);
    expect(await list(admin)).toEqual([mine.id, schedule.id]);
    expect(await list(admin, "?created_by=owner")).toEqual([schedule.id]);
    expect((await patch(admin, schedule.id, { paused: true })).status).toBe(200);
  });

  it("pages the list newest first and refuses a cursor it did not make", async () => {
    const who = await caller();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createSchedule(who, { cron: YEARLY, session: { input: `job ${i}` } })).id);
    const first = (await (await call("/v1/schedules?limit=2", { headers: who.headers })).json()) as {
      data: Schedule[];
      next_cursor: string;
    };
    const second = (await (await call(`/v1/schedules?limit=2&cursor=${first.next_cursor}`, { headers: who.headers })).json()) as {
      data: Schedule[];
      next_cursor: null;
    };
    expect([...first.data, ...second.data].map((s) => s.id)).toEqual([...ids].reverse());
    expect(second.next_cursor).toBeNull();
    expect((await call("/v1/schedules?cursor=bogus", { headers: who.headers })).status).toBe(400);
  });
});
