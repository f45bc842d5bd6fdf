/**
 * Status webhooks and approval timeouts against a real `wrangler dev`, killed with -9 and
 * started again on the same storage. The retry schedule runs 100 times faster
 * (`NOTIFY_RETRY_SCALE=0.01`: 30 s becomes 0.3 s, 8 h becomes under 5 min), so a minute of
 * failures takes about a minute to ride out; the production schedule is unchanged.
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
/** After the last expected notification, a stray repeat would come well within this (retries are at most seconds apart at this scale, early on). */
const QUIET_MS = 3_000;
const OUTAGE_MS = 60_000;

interface Tenant {
  admin: ApiClient;
  writer: ApiClient;
  secret: string;
}

describe("status webhooks against wrangler dev", () => {
  let stack: Stack;
  let receiver: NotificationReceiver;

  beforeAll(async () => {
    stack = await startStack({ vars: { NOTIFY_RETRY_SCALE: "0.01" } });
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
    return receiver.delivered().filter((r) => r.body.session.id === sessionId).map((r) => r.body.type);
  }

  it("tells session.waiting_approval once, and session.done once after the approval and the end of the run", async () => {
    const t = await tenantWithEndpoint();
    const model = stack.mock.model(uniqueName("model"));
    await model.script(callTools([["toolu_ask", "get_time"]]), say("it is noon"));
    const session = await approvalSession(t.writer, model.key);
    await waitForStatus(t.writer, session.id, (s) => s.status === "waiting_approval", STEP_TIMEOUT_MS);
    await waitFor(async () => (receiver.delivered().length >= 1 ? true : undefined), { timeoutMs: STEP_TIMEOUT_MS, what: "session.waiting_approval" });
    await t.writer.expect(200, "POST", `/v1/sessions/${session.id}/tool-calls/toolu_ask/approve`);
    await waitForFinal(t.writer, session.id, STEP_TIMEOUT_MS);
    await waitFor(async () => (receiver.delivered().length >= 2 ? true : undefined), { timeoutMs: STEP_TIMEOUT_MS, what: "session.done" });
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));

    expect(await deliveredTypes(session.id), stack.logs()).toEqual(["session.waiting_approval", "session.done"]);
    expect(receiver.received).toHaveLength(2);
    for (const request of receiver.received) {
      expect(verifySignature(request, t.secret)).toBe(true);
      expect(request.headers["idempotency-key"]).toBe(request.body.id);
    }
    const [call] = await t.writer.toolCalls(session.id);
    expect(call).toMatchObject({ decided_by: "backend", decision: "approved" });
    expect(call!.status).not.toBe("waiting_approval");
  });

  it("still delivers every notification, exactly once per event id, to a receiver that answered 500 for a minute", async () => {
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
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));

    const counts = receiver.deliveredCounts();
    expect(counts.size, stack.logs()).toBe(expected);
    const lastDelivery = Math.max(...receiver.delivered().map((r) => r.received_at));
    console.log(JSON.stringify({ outage_ms: OUTAGE_MS, requests: receiver.received.length, notifications: expected, last_delivered_after_outage_ms: lastDelivery - receiver.failingUntil }));
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
    const { data: endpoints } = await t.admin.expect<{ data: { id: string }[] }>(200, "GET", "/v1/tenant/webhooks");
    const { data: log } = await t.admin.expect<{ data: { event_id: string; status: string; attempts: number }[] }>(200, "GET", `/v1/tenant/webhooks/${endpoints[0]!.id}/deliveries?limit=200`);
    expect(log).toHaveLength(expected);
    for (const delivery of log) {
      expect(delivery.status).toBe("succeeded");
      expect(delivery.attempts).toBe(receiver.received.filter((r) => r.body.id === delivery.event_id).length);
    }
  });

  it("loses nothing across a kill -9: owed deliveries and notifications of runs cut off are all delivered, once", async () => {
    const t = await tenantWithEndpoint();
    receiver.failFor(20_000);
    const sessions: Session[] = [];
    for (let i = 0; i < 8; i++) {
      const model = stack.mock.model(uniqueName("model"));
      // Staggered answers, so the kill finds runs between steps, in model calls, and just finished.
      await model.script(callTools([[`toolu_${i}`, "get_time"]], 200 * i), say(`done ${i}`, 300 * i));
      sessions.push(await t.writer.createSession({ input: `run ${i}`, model: model.key, tools: [{ type: "builtin", name: "get_time" }] }));
    }
    await waitFor(async () => (receiver.received.length >= 3 ? true : undefined), { timeoutMs: STEP_TIMEOUT_MS, what: "the first refused deliveries" });
    const atKill = await Promise.all(sessions.map((s) => t.writer.getSession(s.id)));
    await stack.platform.restart("SIGKILL");
    // The kill landed with notifications owed and with runs still going.
    expect(atKill.some((s) => !FINAL_STATUSES.includes(s.status)), "a run was still going at the kill").toBe(true);
    expect(atKill.some((s) => FINAL_STATUSES.includes(s.status)), "a run had ended at the kill").toBe(true);

    for (const session of sessions) expect(FINAL_STATUSES).toContain((await waitForFinal(t.writer, session.id, 60_000)).status);
    await waitFor(async () => (receiver.deliveredCounts().size >= sessions.length ? true : undefined), {
      timeoutMs: 120_000,
      intervalMs: 500,
      what: "every session.done delivered",
    });
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
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
    expect(call).toMatchObject({ status: "error", is_error: true, output: "denied: approval expired", decided_by: "system", decision: "expired" });
    expect(Date.parse((call as unknown as { decided_at: string }).decided_at) - Date.parse(call!.created_at)).toBeGreaterThanOrEqual(2_000);
    await waitFor(async () => (receiver.deliveredCounts().size >= 2 ? true : undefined), { timeoutMs: STEP_TIMEOUT_MS, what: "both notifications" });
    expect(await deliveredTypes(session.id)).toEqual(["session.waiting_approval", "session.done"]);
  });
});
