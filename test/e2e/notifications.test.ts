/**
 * Status webhooks and approval timeouts against a real `wrangler dev`, killed with -9 and
 * started again on the same storage. The retry schedule runs 500 times faster
 * (`NOTIFY_RETRY_SCALE=0.002`: 30 s becomes 60 ms, 2 h becomes 14.4 s), so an outage of hours in
 * the schedule's terms is ridden out in seconds; the production schedule is unchanged.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ApiClient, Session } from "./support/api-client";
import { NotificationReceiver, verifySignature } from "./support/notification-receiver";
import { callTools, FINAL_STATUSES, say, waitForFinal, waitForRequests, waitForStatus } from "./support/scenario";
import { type Stack, startStack, uniqueName } from "./support/stack";
import { waitFor } from "./support/wait";

const ALL_TYPES = ["session.done", "session.failed", "session.cancelled", "session.waiting_approval", "session.waiting_tool_output"];
const APPROVAL_TOOL = { type: "builtin", name: "get_time", requires_approval: true } as const;
const STEP_TIMEOUT_MS = 30_000;
const RETRY_SCALE = 0.002;
/** 20 s at this scale: the receiver is down for the schedule's first 2 h 46 min. */
const OUTAGE_MS = 20_000;

interface Delivery {
  event_id: string;
  event_type: string;
  session_id: string;
  status: "pending" | "succeeded" | "failed";
  attempts: number;
}

interface Tenant {
  admin: ApiClient;
  writer: ApiClient;
  secret: string;
}

describe("status webhooks against wrangler dev", () => {
  let stack: Stack;
  let receiver: NotificationReceiver;

  beforeAll(async () => {
    stack = await startStack({ vars: { NOTIFY_RETRY_SCALE: String(RETRY_SCALE) } });
  });
  afterAll(async () => {
    await stack?.dispose();
  });
  afterEach(async () => {
    await receiver?.close();
  });

  async function tenantWithEndpoint(types = ALL_TYPES): Promise<Tenant> {
    const tenantId = uniqueName("notify");
    const admin = await stack.client(tenantId, "admin", ["tenant:admin"]);
    const writer = await stack.client(tenantId, "backend");
    receiver = await NotificationReceiver.start();
    await admin.expect(201, "POST", "/v1/tenant/webhooks", { url: receiver.url, event_types: types });
    const { secret } = await admin.expect<{ secret: string }>(200, "GET", "/v1/tenant/webhook-secret");
    return { admin, writer, secret };
  }

  function approvalSession(writer: ApiClient, model: string, extra: Record<string, unknown> = {}): Promise<Session> {
    return writer.createSession({ input: "what time is it?", model, tools: [{ ...APPROVAL_TOOL, ...extra }] as never });
  }

  async function deliveredTypes(sessionId: string): Promise<string[]> {
    return receiver
      .delivered()
      .filter((r) => r.body.session.id === sessionId)
      .map((r) => r.body.type);
  }

  /**
   * The endpoint's delivery log once it holds `count` deliveries and none is still pending. A
   * settled delivery is never attempted again, so from then on nothing more reaches the
   * receiver: this is what the checks for stray repeats wait for, rather than a quiet period.
   */
  async function settledDeliveries(admin: ApiClient, count: number, timeoutMs = STEP_TIMEOUT_MS): Promise<Delivery[]> {
    const { data: endpoints } = await admin.expect<{ data: { id: string }[] }>(200, "GET", "/v1/tenant/webhooks");
    return waitFor(
      async () => {
        const { data } = await admin.expect<{ data: Delivery[] }>(
          200,
          "GET",
          `/v1/tenant/webhooks/${endpoints[0]!.id}/deliveries?limit=200`,
        );
        return data.length >= count && data.every((d) => d.status !== "pending") ? data : undefined;
      },
      { timeoutMs, intervalMs: 250, what: `${count} settled deliveries` },
    );
  }

  it("tells session.waiting_approval once, and session.done once after the approval and the end of the run", async () => {
    const t = await tenantWithEndpoint();
    const model = stack.mock.model(uniqueName("model"));
    await model.script(callTools([["toolu_ask", "get_time"]]), say("it is noon"));
    const session = await approvalSession(t.writer, model.key);
    await waitForStatus(t.writer, session.id, (s) => s.status === "waiting_approval", STEP_TIMEOUT_MS);
    await waitFor(async () => (receiver.delivered().length >= 1 ? true : undefined), {
      timeoutMs: STEP_TIMEOUT_MS,
      what: "session.waiting_approval",
    });
    await t.writer.expect(200, "POST", `/v1/sessions/${session.id}/tool-calls/toolu_ask/approve`);
    await waitForFinal(t.writer, session.id, STEP_TIMEOUT_MS);
    await waitFor(async () => (receiver.delivered().length >= 2 ? true : undefined), { timeoutMs: STEP_TIMEOUT_MS, what: "session.done" });
    const log = await settledDeliveries(t.admin, 2);

    expect(await deliveredTypes(session.id), stack.logs()).toEqual(["session.waiting_approval", "session.done"]);
    expect(log.map((d) => [d.event_type, d.status, d.attempts]).sort()).toEqual([
      ["session.done", "succeeded", 1],
      ["session.waiting_approval", "succeeded", 1],
    ]);
    expect(receiver.received).toHaveLength(2);
    for (const request of receiver.received) {
      expect(verifySignature(request, t.secret)).toBe(true);
      expect(request.headers["idempotency-key"]).toBe(request.body.id);
    }
    const [call] = await t.writer.toolCalls(session.id);
    expect(call).toMatchObject({ decided_by: "backend", decision: "approved" });
    expect(call!.status).not.toBe("waiting_approval");
  });

  it("still delivers every notification, exactly once per event id, to a receiver that answered 500 for hours of the retry schedule", async () => {
    const t = await tenantWithEndpoint();
    receiver.failFor(OUTAGE_MS);
    const model = stack.mock.model(uniqueName("model"));
    const waiting = await (async () => {
      await model.script(callTools([["toolu_ask", "get_time"]]));
      return approvalSession(t.writer, model.key);
    })();
    await waitForStatus(t.writer, waiting.id, (s) => s.status === "waiting_approval", STEP_TIMEOUT_MS);
    await model.script(say("approved and done"));
    await t.writer.expect(200, "POST", `/v1/sessions/${waiting.id}/tool-calls/toolu_ask/approve`);
    const plain: Session[] = [];
    for (let i = 0; i < 5; i++) plain.push(await t.writer.createSession({ input: `run ${i}`, model: uniqueName("plain") }));
    const expected = 2 + plain.length;

    await waitFor(async () => (receiver.deliveredCounts().size >= expected ? true : undefined), {
      timeoutMs: OUTAGE_MS + 90_000,
      intervalMs: 500,
      what: `${expected} notifications delivered`,
    });
    const log = await settledDeliveries(t.admin, expected);

    const counts = receiver.deliveredCounts();
    expect(counts.size, stack.logs()).toBe(expected);
    const lastDelivery = Math.max(...receiver.delivered().map((r) => r.received_at));
    console.log(
      JSON.stringify({
        outage_ms: OUTAGE_MS,
        requests: receiver.received.length,
        notifications: expected,
        last_delivered_after_outage_ms: lastDelivery - receiver.failingUntil,
      }),
    );
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    // Each delivery retries on its own jittered schedule, so after an outage they may arrive in either order (the README says so).
    expect((await deliveredTypes(waiting.id)).sort()).toEqual(["session.done", "session.waiting_approval"]);
    for (const session of plain) expect(await deliveredTypes(session.id)).toEqual(["session.done"]);
    // Every attempt in the outage was refused, each notification was tried again and again with its event id, and nothing came after its delivery.
    for (const request of receiver.received) {
      if (request.received_at < receiver.failingUntil) expect(request.answered).toBe(500);
      expect(request.headers["idempotency-key"]).toBe(request.body.id);
      expect(verifySignature(request, t.secret)).toBe(true);
    }
    for (const id of counts.keys()) {
      const attempts = receiver.received.filter((r) => r.body.id === id);
      expect(attempts.length).toBeGreaterThanOrEqual(4);
      expect(attempts.at(-1)!.answered).toBe(200);
    }
    // The delivery log agrees: each delivery succeeded after as many attempts as the receiver saw.
    expect(log).toHaveLength(expected);
    for (const delivery of log) {
      expect(delivery.status).toBe("succeeded");
      expect(delivery.attempts).toBe(receiver.received.filter((r) => r.body.id === delivery.event_id).length);
    }
  });

  it("loses nothing across a kill -9: owed deliveries and notifications of runs cut off are all delivered, once", async () => {
    const t = await tenantWithEndpoint();
    // About half an hour of the retry schedule.
    receiver.failFor(4_000);
    const sessions: Session[] = [];
    for (let i = 0; i < 8; i++) {
      const model = stack.mock.model(uniqueName("model"));
      // Staggered answers, so the kill finds runs between steps, in model calls, and just finished.
      await model.script(callTools([[`toolu_${i}`, "get_time"]], 200 * i), say(`done ${i}`, 300 * i));
      sessions.push(await t.writer.createSession({ input: `run ${i}`, model: model.key, tools: [{ type: "builtin", name: "get_time" }] }));
    }
    await waitFor(async () => (receiver.received.length >= 3 ? true : undefined), {
      timeoutMs: STEP_TIMEOUT_MS,
      what: "the first refused deliveries",
    });
    const atKill = await Promise.all(sessions.map((s) => t.writer.getSession(s.id)));
    // An attempt the receiver answers 200 just as the kill lands is sent again (at least once):
    // the receiver still refuses at the kill, however slow the machine, so each is delivered once.
    if (receiver.failingUntil - Date.now() < 2_000) receiver.failFor(2_000);
    await stack.platform.restart("SIGKILL");
    // The kill landed with notifications owed and with runs still going.
    expect(
      atKill.some((s) => !FINAL_STATUSES.includes(s.status)),
      "a run was still going at the kill",
    ).toBe(true);
    expect(
      atKill.some((s) => FINAL_STATUSES.includes(s.status)),
      "a run had ended at the kill",
    ).toBe(true);

    for (const session of sessions) expect(FINAL_STATUSES).toContain((await waitForFinal(t.writer, session.id, 60_000)).status);
    await waitFor(async () => (receiver.deliveredCounts().size >= sessions.length ? true : undefined), {
      timeoutMs: 120_000,
      intervalMs: 500,
      what: "every session.done delivered",
    });
    const log = await settledDeliveries(t.admin, sessions.length);
    expect(log).toHaveLength(sessions.length);
    for (const session of sessions) expect(await deliveredTypes(session.id), stack.logs()).toEqual(["session.done"]);
    expect([...receiver.deliveredCounts().values()].every((n) => n === 1)).toBe(true);
  });

  it("denies an approval with a 2 s timeout by expiry, even across a kill -9, and the run ends normally", async () => {
    const t = await tenantWithEndpoint(["session.waiting_approval", "session.done"]);
    const model = stack.mock.model(uniqueName("model"));
    await model.script(callTools([["toolu_late", "get_time"]]), say("no time, then"));
    const session = await approvalSession(t.writer, model.key, { approval_timeout_seconds: 2 });
    await waitForStatus(t.writer, session.id, (s) => s.status === "waiting_approval", STEP_TIMEOUT_MS);
    await stack.platform.restart("SIGKILL");
    // Nothing asks the platform anything: the stored alarm alone brings the expiry and the next model call.
    await waitForRequests(model, 2, 60_000);
    const final = await waitForFinal(t.writer, session.id, STEP_TIMEOUT_MS);
    expect(final, stack.logs()).toMatchObject({ status: "done", stop_reason: "end_turn" });
    const [call] = await t.writer.toolCalls(session.id);
    expect(call).toMatchObject({
      status: "error",
      is_error: true,
      output: "denied: approval expired",
      decided_by: "system",
      decision: "expired",
    });
    expect(Date.parse((call as unknown as { decided_at: string }).decided_at) - Date.parse(call!.created_at)).toBeGreaterThanOrEqual(2_000);
    await waitFor(async () => (receiver.deliveredCounts().size >= 2 ? true : undefined), {
      timeoutMs: STEP_TIMEOUT_MS,
      what: "both notifications",
    });
    const log = await settledDeliveries(t.admin, 2);
    // The session entered each status once: one event each, in that order. The kill may land
    // after the receiver answered the waiting_approval delivery but before the platform recorded
    // the answer; that delivery is then sent again after the restart, with the same event id
    // and body (at least once, as the README promises), and the log counts both attempts.
    const events = receiver.delivered().filter((r) => r.body.session.id === session.id);
    // Deliveries are independent, so a repeated one may come after a later one: order by the change (README).
    const byChange = [...events].sort((a, b) => a.body.session.updated_at.localeCompare(b.body.session.updated_at));
    const ids = [...new Set(byChange.map((r) => r.body.id))];
    expect(
      ids.map((id) => events.find((r) => r.body.id === id)!.body.type),
      stack.logs(),
    ).toEqual(["session.waiting_approval", "session.done"]);
    for (const id of ids) expect(new Set(events.filter((r) => r.body.id === id).map((r) => r.body_text)).size).toBe(1);
    expect(log.map((d) => [d.event_type, d.status]).sort()).toEqual([
      ["session.done", "succeeded"],
      ["session.waiting_approval", "succeeded"],
    ]);
    // The log counts every attempt the receiver saw. An attempt is counted before its request
    // leaves (so a crash cannot reset the count), and the kill may land between the two: that
    // attempt reached nobody. So the delivery in flight at the kill, waiting_approval's, may count
    // one attempt more than the receiver saw, never fewer; session.done came after the restart.
    for (const delivery of log) {
      const seen = receiver.received.filter((r) => r.body.id === delivery.event_id).length;
      expect(delivery.attempts, JSON.stringify(delivery)).toBeGreaterThanOrEqual(seen);
      expect(delivery.attempts, JSON.stringify(delivery)).toBeLessThanOrEqual(
        seen + (delivery.event_type === "session.waiting_approval" ? 1 : 0),
      );
    }
    expect(log.find((d) => d.event_type === "session.done")!.attempts).toBe(1);
  });
});
