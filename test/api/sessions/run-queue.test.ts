/**
 * Run slots are held only by running sessions: one that waits for a person or a client, or is
 * paused, holds none, and when it moves on without a free slot it is `queued` and starts by
 * itself, in arrival order, when one frees.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Session } from "../../../src/session-config/types";
import { tenantIndexStub } from "../../../src/objects";
import { callJson } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { bearer, freshTenant } from "../../support/tokens";
import { caller, type Caller, cancelQuietly, createSession, getJson, post, text, toolUse, waitForStatus } from "./helpers";

const APPROVED_TOOL = { type: "builtin", name: "get_time", requires_approval: true };

async function setMaxRuns(tenantId: string, max: number): Promise<void> {
  const platformAdmin = await bearer({ tenantId: freshTenant("ops"), scopes: ["platform:admin"], subject: "operator" });
  const res = await callJson(`/v1/admin/tenants/${tenantId}/limits`, "PUT", { max_concurrent_runs: max }, platformAdmin);
  expect(res.status).toBe(200);
}

/** A session whose run waits for approval of one get_time call. */
async function waitingSession(
  who: Caller,
  callId: string,
  then: unknown[] = [{ reply: { content: [text("done")] } }],
): Promise<{ session: Session; model: ReturnType<typeof mockModel> }> {
  const model = mockModel(uniqueKey("model"));
  await model.script({ reply: { content: [toolUse(callId, "get_time")] } }, ...(then as never[]));
  const session = await createSession(who, { input: "what time is it?", model: model.key, tools: [APPROVED_TOOL] });
  await waitForStatus(who, session.id, ["waiting_approval"]);
  return { session, model };
}

describe("run slots and the run queue", () => {
  it("lets sessions that wait for approval hold no slot, so new runs still start", async () => {
    const who = await caller();
    await setMaxRuns(who.tenantId, 2);
    const waiting = [await waitingSession(who, "toolu_w1"), await waitingSession(who, "toolu_w2")];
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [text("hello")] } });
    const fresh = await createSession(who, { input: "hi", model: model.key });
    expect((await waitForStatus(who, fresh.id, ["done"])).stop_reason).toBe("end_turn");
    for (const { session } of waiting) await cancelQuietly(who, session.id);
  });

  it("queues an approved run when the tenant is full, and starts it by itself when a slot frees", async () => {
    const who = await caller();
    await setMaxRuns(who.tenantId, 1);
    const { session: waiting } = await waitingSession(who, "toolu_q1");
    const busyModel = mockModel(uniqueKey("model"));
    await busyModel.script({ hang: true });
    const busy = await createSession(who, { input: "keep busy", model: busyModel.key });
    expect(busy.status).toBe("running");

    const approved = await post(who, `/v1/sessions/${waiting.id}/tool-calls/toolu_q1/approve`);
    expect(approved.status).toBe(200);
    expect(((await approved.json()) as Session).status).toBe("queued");
    // A new run does not jump the queue.
    const refused = await callJson("/v1/sessions", "POST", { input: "me first", model: busyModel.key }, who.headers);
    expect(refused.status).toBe(429);
    await refused.body?.cancel();

    await cancelQuietly(who, busy.id);
    const done = await waitForStatus(who, waiting.id, ["done"], 10_000);
    expect(done.stop_reason).toBe("end_turn");
    const calls = await getJson<{ data: { status: string }[] }>(who, `/v1/sessions/${waiting.id}/tool-calls`);
    expect(calls.data.map((c) => c.status)).toEqual(["done"]);
  });

  it("starts queued sessions in the order they queued", async () => {
    const who = await caller();
    await setMaxRuns(who.tenantId, 1);
    const first = await waitingSession(who, "toolu_o1", [{ hang: true }]);
    const second = await waitingSession(who, "toolu_o2", [{ reply: { content: [text("second done")] } }]);
    const busyModel = mockModel(uniqueKey("model"));
    await busyModel.script({ hang: true });
    const busy = await createSession(who, { input: "keep busy", model: busyModel.key });

    expect(((await (await post(who, `/v1/sessions/${first.session.id}/tool-calls/toolu_o1/approve`)).json()) as Session).status).toBe(
      "queued",
    );
    expect(((await (await post(who, `/v1/sessions/${second.session.id}/tool-calls/toolu_o2/approve`)).json()) as Session).status).toBe(
      "queued",
    );

    await cancelQuietly(who, busy.id);
    // The first queued takes the one slot (its model call then hangs); the second keeps waiting.
    await waitForStatus(who, first.session.id, ["running"], 10_000);
    await first.model.waitForRequests(2);
    expect((await getJson<Session>(who, `/v1/sessions/${second.session.id}`)).status).toBe("queued");
    await cancelQuietly(who, first.session.id);
    expect((await waitForStatus(who, second.session.id, ["done"], 10_000)).stop_reason).toBe("end_turn");
  });

  it("resumes a paused session into the queue when the tenant is full, and cancels it from there", async () => {
    const who = await caller();
    await setMaxRuns(who.tenantId, 1);
    const { session: waiting } = await waitingSession(who, "toolu_p1");
    expect((await post(who, `/v1/sessions/${waiting.id}/pause`)).status).toBe(200);
    // Approving while paused needs no slot; resuming does.
    expect((await post(who, `/v1/sessions/${waiting.id}/tool-calls/toolu_p1/approve`)).status).toBe(200);
    const busyModel = mockModel(uniqueKey("model"));
    await busyModel.script({ hang: true });
    const busy = await createSession(who, { input: "keep busy", model: busyModel.key });

    const resumed = await post(who, `/v1/sessions/${waiting.id}/resume`);
    expect(resumed.status).toBe(200);
    expect(((await resumed.json()) as Session).status).toBe("queued");
    const cancelled = await post(who, `/v1/sessions/${waiting.id}/cancel`);
    expect(((await cancelled.json()) as Session).status).toBe("cancelled");
    const counts = await tenantIndexStub(env, who.tenantId).counts(who.tenantId);
    expect(counts.queued).toBe(0);
    await cancelQuietly(who, busy.id);
  });

  it("starts an interrupting run queued when the interrupted one held no slot and the tenant is full", async () => {
    const who = await caller();
    await setMaxRuns(who.tenantId, 1);
    const { session: waiting, model } = await waitingSession(who, "toolu_i1", []);
    await model.script({ reply: { content: [text("interrupted and answered")] } });
    const busyModel = mockModel(uniqueKey("model"));
    await busyModel.script({ hang: true });
    const busy = await createSession(who, { input: "keep busy", model: busyModel.key });

    const interrupted = await post(who, `/v1/sessions/${waiting.id}/messages`, { input: "never mind that", if_running: "interrupt" });
    expect(interrupted.status).toBe(202);
    expect(((await interrupted.json()) as Session).status).toBe("queued");
    await cancelQuietly(who, busy.id);
    expect((await waitForStatus(who, waiting.id, ["done"], 10_000)).stop_reason).toBe("end_turn");
  });
});
