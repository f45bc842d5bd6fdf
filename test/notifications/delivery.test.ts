/**
 * Status notifications end to end in the Workers runtime: sessions driven through the API, a
 * mock receiver, and the tenant's delivery log. Retries run on the real schedule shortened by
 * `NOTIFY_RETRY_SCALE` (vitest.config.ts), so 30 s is 30 ms here.
 */
import { describe, expect, it } from "vitest";
import { APPROVAL_EXPIRED_OUTPUT } from "../../src/sessions/object/loop/approval-expiry";
import type { Notification } from "../../src/notifications/types";
import { createSession, getJson, post, text, toolUse, waitForStatus, OBJECT_SCHEMA } from "../api/sessions/helpers";
import { call, readProblem } from "../support/api";
import { mockHook, mockModel, uniqueKey } from "../support/mock-client";
import {
  deliveries,
  eventually,
  expectNoDuplicates,
  notificationsOf,
  redeliver,
  registerEndpoint,
  signedWith,
  tenant,
  typesFor,
  webhookSecret,
} from "./helpers";

const ALL_TYPES = ["session.done", "session.failed", "session.cancelled", "session.waiting_approval", "session.waiting_tool_output"];
/** After the last expected notification, a stray one would come well within this. */
const QUIET_MS = 300;

const quiet = () => new Promise((resolve) => setTimeout(resolve, QUIET_MS));

describe("status notifications", () => {
  it("sends session.waiting_approval once, then session.done once after the approval, signed and with the event id", async () => {
    const t = await tenant();
    const hook = mockHook(uniqueKey("receiver"));
    const endpoint = await registerEndpoint(t.admin, hook.url, ALL_TYPES);
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [toolUse("toolu_a", "get_time")] } }, { reply: { content: [text("done")] } });
    const session = await createSession(t.writer, {
      input: "go",
      model: model.key,
      metadata: { ticket: "T-1" },
      tools: [{ type: "builtin", name: "get_time", requires_approval: true }],
    });
    await waitForStatus(t.writer, session.id, ["waiting_approval"]);
    await hook.waitForRequests(1);
    expect((await post(t.writer, `/v1/sessions/${session.id}/tool-calls/toolu_a/approve`)).status).toBe(200);
    await waitForStatus(t.writer, session.id, ["done"]);
    const requests = await hook.waitForRequests(2);
    await quiet();
    expect(await hook.requests()).toHaveLength(2);
    expect(typesFor(requests, session.id)).toEqual(["session.waiting_approval", "session.done"]);

    const secret = await webhookSecret(t.admin);
    const [waiting, done] = notificationsOf(requests) as [Notification, Notification];
    for (const request of requests) {
      const body = request.body as Notification;
      expect(request.headers["idempotency-key"]).toBe(body.id);
      expect(request.headers["x-webhook-event"]).toBe(body.type);
      expect(request.headers["content-type"]).toBe("application/json");
      expect(await signedWith(request, secret)).toBe(true);
      expect(body).toMatchObject({ id: expect.stringMatching(/^evt_/), tenant_id: t.tenantId, created_at: body.session.updated_at });
    }
    expect(waiting.id).not.toBe(done.id);
    expect(waiting.session).toMatchObject({
      id: session.id,
      status: "waiting_approval",
      created_by: "user-1",
      metadata: { ticket: "T-1" },
      stop_reason: null,
    });
    expect(waiting.session.waiting_tool_calls).toEqual([
      { id: "toolu_a", name: "get_time", status: "waiting_approval", approval_expires_at: null },
    ]);
    expect(done.session).toMatchObject({ status: "done", stop_reason: "end_turn", usage: { steps: 2 }, waiting_tool_calls: [] });
    // The session's own system prompt, tools and context are not part of a notification.
    expect(Object.keys(done.session)).not.toContain("tools");

    const log = await deliveries(t.admin, endpoint.id);
    expect(log.map((d) => [d.event_type, d.status, d.attempts, d.response_status, d.endpoint_id])).toEqual([
      ["session.done", "succeeded", 1, 200, endpoint.id],
      ["session.waiting_approval", "succeeded", 1, 200, endpoint.id],
    ]);
    expect(log.map((d) => d.event_id).sort()).toEqual([waiting.id, done.id].sort());
  });

  it("tells each wait: a session that runs one approved call and waits for the next is told again, with what it waits for", async () => {
    const t = await tenant();
    const hook = mockHook(uniqueKey("receiver"));
    await registerEndpoint(t.admin, hook.url, ["session.waiting_approval"]);
    const model = mockModel(uniqueKey("model"));
    await model.script(
      { reply: { content: [toolUse("toolu_a", "get_time"), toolUse("toolu_b", "get_time")] } },
      { reply: { content: [text("done")] } },
    );
    const session = await createSession(t.writer, {
      input: "go",
      model: model.key,
      tools: [{ type: "builtin", name: "get_time", requires_approval: true }],
    });
    await waitForStatus(t.writer, session.id, ["waiting_approval"]);
    const [first] = await hook.waitForRequests(1);
    expect((first!.body as Notification).session.waiting_tool_calls.map((c) => c.id)).toEqual(["toolu_a", "toolu_b"]);
    // Approving one lets it run; the session then waits for the other again.
    await post(t.writer, `/v1/sessions/${session.id}/tool-calls/toolu_a/approve`);
    const [, second] = await hook.waitForRequests(2);
    expect((second!.body as Notification).session.waiting_tool_calls.map((c) => c.id)).toEqual(["toolu_b"]);
    await post(t.writer, `/v1/sessions/${session.id}/tool-calls/toolu_b/deny`);
    await waitForStatus(t.writer, session.id, ["done"]);
    await quiet();
    expect(await hook.requests()).toHaveLength(2);
  });

  it("sends each endpoint only the types it chose", async () => {
    const t = await tenant();
    const failures = mockHook(uniqueKey("failures"));
    const finished = mockHook(uniqueKey("finished"));
    const failuresEndpoint = await registerEndpoint(t.admin, failures.url, ["session.failed"]);
    await registerEndpoint(t.admin, finished.url, ["session.done", "session.cancelled"]);
    const model = mockModel(uniqueKey("model"));
    const session = await createSession(t.writer, { input: "hi", model: model.key });
    await waitForStatus(t.writer, session.id, ["done"]);
    expect(typesFor(await finished.waitForRequests(1), session.id)).toEqual(["session.done"]);
    await quiet();
    expect(await failures.requests()).toEqual([]);
    expect(await deliveries(t.admin, failuresEndpoint.id)).toEqual([]);
  });

  it("sends a session's notify_url every type, and tells session.waiting_tool_output", async () => {
    const t = await tenant();
    const own = mockHook(uniqueKey("own"));
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [toolUse("toolu_ask", "ask")] } }, { reply: { content: [text("thanks")] } });
    const session = await createSession(t.writer, {
      input: "ask me",
      model: model.key,
      notify_url: own.url,
      tools: [{ type: "client", name: "ask", description: "asks the user", input_schema: OBJECT_SCHEMA }],
    });
    await waitForStatus(t.writer, session.id, ["waiting_tool_output"]);
    await own.waitForRequests(1);
    expect((await post(t.writer, `/v1/sessions/${session.id}/tool-calls/toolu_ask/output`, { output: "42" })).status).toBe(200);
    await waitForStatus(t.writer, session.id, ["done"]);
    const requests = await own.waitForRequests(2);
    expect(typesFor(requests, session.id)).toEqual(["session.waiting_tool_output", "session.done"]);
    expect((requests[0]!.body as Notification).session.waiting_tool_calls).toEqual([
      { id: "toolu_ask", name: "ask", status: "waiting_tool_output", approval_expires_at: null },
    ]);
    expect(await signedWith(requests[1]!, await webhookSecret(t.admin))).toBe(true);
  });

  it("sends each event once to a URL that several endpoints and the notify_url share", async () => {
    const t = await tenant();
    const hook = mockHook(uniqueKey("shared"));
    const first = await registerEndpoint(t.admin, hook.url, ["session.done"]);
    const second = await registerEndpoint(t.admin, hook.url, ["session.done"]);
    const session = await createSession(t.writer, { input: "hi", model: mockModel(uniqueKey("model")).key, notify_url: hook.url });
    await waitForStatus(t.writer, session.id, ["done"]);
    await hook.waitForRequests(1);
    await eventually(async () => ((await deliveries(t.admin, first.id))[0]?.status === "succeeded" ? true : undefined), "the delivery");
    await quiet();
    expect(typesFor(await hook.requests(), session.id)).toEqual(["session.done"]);
    expect(await deliveries(t.admin, second.id)).toEqual([]);
  });

  it("tells session.failed with the error, and session.cancelled after a cancel", async () => {
    const t = await tenant();
    const hook = mockHook(uniqueKey("receiver"));
    await registerEndpoint(t.admin, hook.url, ALL_TYPES);
    const failing = mockModel(uniqueKey("failing"));
    await failing.script({ status: 400 });
    const hanging = mockModel(uniqueKey("hanging"));
    await hanging.script({ hang: true });
    const a = await createSession(t.writer, { input: "fail", model: failing.key });
    const b = await createSession(t.writer, { input: "hang", model: hanging.key });
    await waitForStatus(t.writer, a.id, ["failed"]);
    await hanging.waitForRequests(1);
    expect((await post(t.writer, `/v1/sessions/${b.id}/cancel`)).status).toBe(200);
    const requests = await hook.waitForRequests(2);
    await quiet();
    expect(typesFor(await hook.requests(), a.id)).toEqual(["session.failed"]);
    expect(typesFor(await hook.requests(), b.id)).toEqual(["session.cancelled"]);
    const failed = notificationsOf(requests).find((n) => n.session.id === a.id)!;
    expect(failed.session).toMatchObject({ status: "failed", stop_reason: "model_error", error: expect.stringContaining("400") });
  });

  it("sends no session.cancelled for an interrupt, which replaces the run without cancelling it", async () => {
    const t = await tenant();
    const hook = mockHook(uniqueKey("receiver"));
    await registerEndpoint(t.admin, hook.url, ALL_TYPES);
    const model = mockModel(uniqueKey("model"));
    await model.script({ hang: true }, { reply: { content: [text("the new answer")] } });
    const session = await createSession(t.writer, { input: "first question", model: model.key });
    await model.waitForRequests(1);
    expect((await post(t.writer, `/v1/sessions/${session.id}/messages`, { input: "new question", if_running: "interrupt" })).status).toBe(
      202,
    );
    await waitForStatus(t.writer, session.id, ["done"]);
    await hook.waitForRequests(1);
    await quiet();
    expect(typesFor(await hook.requests(), session.id)).toEqual(["session.done"]);
    // A cancel is told, by contrast.
    const other = await createSession(t.writer, { input: "again", model: model.key });
    await post(t.writer, `/v1/sessions/${other.id}/cancel`);
    await hook.waitForRequests(2);
    expect(typesFor(await hook.requests(), other.id)).toEqual(["session.cancelled"]);
  });

  it("sends no session.cancelled for an interrupt of a session waiting for approval: the new run goes on", async () => {
    const t = await tenant();
    const hook = mockHook(uniqueKey("receiver"));
    await registerEndpoint(t.admin, hook.url, ALL_TYPES);
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [toolUse("toolu_w", "get_time")] } }, { reply: { content: [text("asked again")] } });
    const session = await createSession(t.writer, {
      input: "what time is it?",
      model: model.key,
      tools: [{ type: "builtin", name: "get_time", requires_approval: true }],
    });
    await waitForStatus(t.writer, session.id, ["waiting_approval"]);
    expect((await post(t.writer, `/v1/sessions/${session.id}/messages`, { input: "never mind", if_running: "interrupt" })).status).toBe(
      202,
    );
    await waitForStatus(t.writer, session.id, ["done"]);
    await hook.waitForRequests(2);
    await quiet();
    expect(typesFor(await hook.requests(), session.id)).toEqual(["session.waiting_approval", "session.done"]);
  });

  it("sends nothing for a pause or a resume, only the end of the run", async () => {
    const t = await tenant();
    const hook = mockHook(uniqueKey("receiver"));
    await registerEndpoint(t.admin, hook.url, ALL_TYPES);
    const model = mockModel(uniqueKey("model"));
    await model.script({ hang: true }, { reply: { content: [text("resumed")] } });
    const session = await createSession(t.writer, { input: "slow", model: model.key });
    await model.waitForRequests(1);
    expect((await post(t.writer, `/v1/sessions/${session.id}/pause`)).status).toBe(200);
    expect((await post(t.writer, `/v1/sessions/${session.id}/resume`)).status).toBe(200);
    await waitForStatus(t.writer, session.id, ["done"]);
    await hook.waitForRequests(1);
    await quiet();
    expect(typesFor(await hook.requests(), session.id)).toEqual(["session.done"]);
  });

  it("hands a deleted session's notification to the tenant: session.cancelled arrives after the session is gone", async () => {
    const t = await tenant();
    const hook = mockHook(uniqueKey("receiver"));
    await registerEndpoint(t.admin, hook.url, ["session.cancelled"]);
    const model = mockModel(uniqueKey("model"));
    await model.script({ hang: true });
    const session = await createSession(t.writer, { input: "run", model: model.key });
    await model.waitForRequests(1);
    expect((await call(`/v1/sessions/${session.id}`, { method: "DELETE", headers: t.writer.headers })).status).toBe(204);
    expect((await call(`/v1/sessions/${session.id}`, { headers: t.writer.headers })).status).toBe(404);
    const [request] = await hook.waitForRequests(1);
    expect(request!.body).toMatchObject({ type: "session.cancelled", session: { id: session.id, status: "cancelled" } });
  });
});

describe("retries and the delivery log", () => {
  it("retries a receiver that answers 500, with the same event id, until it takes each notification once", async () => {
    const t = await tenant();
    const hook = mockHook(uniqueKey("flaky"));
    const FAILURES = 5;
    await hook.script({ status: 500, body: "down", repeat: FAILURES });
    const endpoint = await registerEndpoint(t.admin, hook.url, ALL_TYPES);
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [toolUse("toolu_a", "get_time")] } }, { reply: { content: [text("ok")] } });
    const session = await createSession(t.writer, {
      input: "go",
      model: model.key,
      tools: [{ type: "builtin", name: "get_time", requires_approval: true }],
    });
    await waitForStatus(t.writer, session.id, ["waiting_approval"]);
    await post(t.writer, `/v1/sessions/${session.id}/tool-calls/toolu_a/approve`);
    await waitForStatus(t.writer, session.id, ["done"]);

    const log = await eventually(async () => {
      const all = await deliveries(t.admin, endpoint.id);
      return all.length === 2 && all.every((d) => d.status === "succeeded") ? all : undefined;
    }, "both deliveries to succeed");
    await quiet();
    const requests = await hook.requests();
    expect(requests).toHaveLength(FAILURES + 2);
    // The first FAILURES answers were 500s; every later request was answered 200: one per event.
    const delivered = requests.slice(FAILURES).map((r) => (r.body as Notification).id);
    expectNoDuplicates(delivered);
    expect(delivered.sort()).toEqual(log.map((d) => d.event_id).sort());
    for (const request of requests) expect(request.headers["idempotency-key"]).toBe((request.body as Notification).id);
    expect(log.reduce((sum, d) => sum + d.attempts, 0)).toBe(FAILURES + 2);
    expect(log.every((d) => d.response_status === 200 && d.error === null)).toBe(true);
  });

  it("shows a delivery still owed with its attempts, last answer and next attempt", async () => {
    const t = await tenant();
    const hook = mockHook(uniqueKey("down"));
    await hook.script({ status: 503, body: "maintenance", repeat: 2 }, { hold: true, then: { status: 200 } });
    const endpoint = await registerEndpoint(t.admin, hook.url, ["session.done"]);
    const session = await createSession(t.writer, { input: "hi", model: mockModel(uniqueKey("model")).key });
    await waitForStatus(t.writer, session.id, ["done"]);
    await hook.waitForRequests(3);
    const [owed] = await deliveries(t.admin, endpoint.id);
    expect(owed).toMatchObject({
      status: "pending",
      attempts: 3,
      response_status: 503,
      error: "answered 503: maintenance",
      session_id: session.id,
    });
    expect(Date.parse(owed!.next_attempt_at!)).toBeGreaterThan(Date.now() - 1_000);
    expect(await deliveries(t.admin, endpoint.id, "&status=succeeded")).toEqual([]);

    // Redelivering a delivery that is still owed is refused.
    expect((await redeliver(t.admin, endpoint.id, owed!.id)).status).toBe(409);
    await hook.release();
    const settled = await eventually(async () => {
      const [d] = await deliveries(t.admin, endpoint.id);
      return d?.status === "succeeded" ? d : undefined;
    }, "the held attempt to be recorded");
    expect(settled).toMatchObject({ attempts: 3, response_status: 200, error: null, next_attempt_at: null });
  });

  it("does not follow a redirect: the attempt fails, says why, and is tried again at the same URL", async () => {
    const t = await tenant();
    const hook = mockHook(uniqueKey("moved"));
    await hook.script({ status: 302, headers: { location: "https://elsewhere.example.com/hook" } }, { hold: true, then: { status: 200 } });
    const endpoint = await registerEndpoint(t.admin, hook.url, ["session.done"]);
    const session = await createSession(t.writer, { input: "hi", model: mockModel(uniqueKey("model")).key });
    await waitForStatus(t.writer, session.id, ["done"]);
    const requests = await hook.waitForRequests(2);
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST ${new URL(hook.url).pathname}`,
      `POST ${new URL(hook.url).pathname}`,
    ]);
    const [owed] = await deliveries(t.admin, endpoint.id);
    expect(owed).toMatchObject({
      status: "pending",
      attempts: 2,
      response_status: null,
      error: "answered with a redirect, which is not followed",
    });
    await hook.release();
    await eventually(
      async () => ((await deliveries(t.admin, endpoint.id))[0]?.status === "succeeded" ? true : undefined),
      "the delivery to succeed",
    );
  });

  it("redelivers a delivery as a new one with the same body and event id", async () => {
    const t = await tenant();
    const hook = mockHook(uniqueKey("receiver"));
    const endpoint = await registerEndpoint(t.admin, hook.url, ["session.done"]);
    const session = await createSession(t.writer, { input: "hi", model: mockModel(uniqueKey("model")).key });
    await waitForStatus(t.writer, session.id, ["done"]);
    const [first] = await hook.waitForRequests(1);
    const original = await eventually(
      async () => (await deliveries(t.admin, endpoint.id)).find((d) => d.status === "succeeded"),
      "the delivery",
    );

    const res = await redeliver(t.admin, endpoint.id, original.id);
    expect(res.status).toBe(202);
    const again = (await res.json()) as { id: string };
    expect(again).toMatchObject({
      status: "pending",
      attempts: 0,
      redelivery_of: original.id,
      event_id: original.event_id,
      session_id: session.id,
    });
    const [, second] = await hook.waitForRequests(2);
    expect(second!.body_text).toBe(first!.body_text);
    expect(second!.headers["idempotency-key"]).toBe(original.event_id);
    const log = await eventually(async () => {
      const all = await deliveries(t.admin, endpoint.id);
      return all.every((d) => d.status === "succeeded") ? all : undefined;
    }, "the redelivery to succeed");
    expect(log.map((d) => d.id)).toEqual([again.id, original.id]);

    // At most once a minute per notification and endpoint, whichever of its deliveries is named.
    for (const named of [original.id, again.id]) {
      const refused = await redeliver(t.admin, endpoint.id, named);
      expect(refused.status).toBe(429);
      expect((await readProblem(refused)).code).toBe("rate_limited");
      expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(50);
      expect(Number(refused.headers.get("Retry-After"))).toBeLessThanOrEqual(60);
    }

    expect((await redeliver(t.admin, endpoint.id, "dlv_AAAAAAAAAAAAAAAAAAAAAAAA")).status).toBe(404);
    const other = await tenant();
    expect((await redeliver(other.admin, endpoint.id, original.id)).status).toBe(404);
  });

  it("stops delivering to an endpoint once it is deleted", async () => {
    const t = await tenant();
    const hook = mockHook(uniqueKey("gone"));
    await hook.script({ status: 500, repeat: 1_000 });
    const endpoint = await registerEndpoint(t.admin, hook.url, ["session.done"]);
    const session = await createSession(t.writer, { input: "hi", model: mockModel(uniqueKey("model")).key });
    await waitForStatus(t.writer, session.id, ["done"]);
    await hook.waitForRequests(2);
    expect((await call(`/v1/tenant/webhooks/${endpoint.id}`, { method: "DELETE", headers: t.admin.headers })).status).toBe(204);
    await quiet();
    const seen = (await hook.requests()).length;
    // The delays are growing (120 ms, 600 ms, 1.8 s...): a delivery that went on would show within this.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await hook.requests()).length).toBe(seen);
  });
});

describe("signatures", () => {
  it("carry both secrets, newest first, during a rotation's grace period", async () => {
    const t = await tenant();
    const hook = mockHook(uniqueKey("receiver"));
    await registerEndpoint(t.admin, hook.url, ["session.done"]);
    const before = await webhookSecret(t.admin);
    const rotated = await post(t.admin, "/v1/tenant/webhook-secret");
    const after = ((await rotated.json()) as { secret: string }).secret;
    const session = await createSession(t.writer, { input: "hi", model: mockModel(uniqueKey("model")).key });
    await waitForStatus(t.writer, session.id, ["done"]);
    const [request] = await hook.waitForRequests(1);
    const signatures = request!.headers["x-webhook-signature"]!.split(",");
    expect(signatures).toHaveLength(2);
    expect(await signedWith({ ...request!, headers: { ...request!.headers, "x-webhook-signature": signatures[0]! } }, after)).toBe(true);
    expect(await signedWith({ ...request!, headers: { ...request!.headers, "x-webhook-signature": signatures[1]! } }, before)).toBe(true);
    expect(await signedWith({ ...request!, body_text: request!.body_text.replace("done", "dune") }, after)).toBe(false);
  });
});

describe("approvals that expire", () => {
  it("notify with the deadline, and the expiry is told like any decision", async () => {
    const t = await tenant();
    const hook = mockHook(uniqueKey("receiver"));
    await registerEndpoint(t.admin, hook.url, ALL_TYPES);
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [toolUse("toolu_late", "get_time")] } }, { reply: { content: [text("no time then")] } });
    const session = await createSession(t.writer, {
      input: "go",
      model: model.key,
      tools: [{ type: "builtin", name: "get_time", requires_approval: true, approval_timeout_seconds: 1 }],
    });
    await waitForStatus(t.writer, session.id, ["done"], 10_000);
    const requests = await hook.waitForRequests(2);
    expect(typesFor(requests, session.id)).toEqual(["session.waiting_approval", "session.done"]);
    const [call0] = (requests[0]!.body as Notification).session.waiting_tool_calls;
    const calls = await getJson<{ data: { id: string; created_at: string; output: string; decided_by: string; decision: string }[] }>(
      t.writer,
      `/v1/sessions/${session.id}/tool-calls`,
    );
    expect(Date.parse(call0!.approval_expires_at!)).toBe(Date.parse(calls.data[0]!.created_at) + 1_000);
    expect(calls.data[0]).toMatchObject({ output: APPROVAL_EXPIRED_OUTPUT, decided_by: "system", decision: "expired" });
  });
});
