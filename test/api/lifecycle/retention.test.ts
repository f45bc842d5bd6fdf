/**
 * Session retention through the API, with a retention day of 1.728 s (`SESSION_RETENTION_SCALE`
 * in vitest.config.ts): a finished session is erased once its last change is a day old, while
 * one that waits for an approval longer, or runs longer, is kept; a change restarts the clock.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sessionStub } from "../../../src/objects";
import type { Session } from "../../../src/session-config/types";
import { call, callJson, readProblem } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { bearer, freshTenant } from "../../support/tokens";
import { caller, createSession, post, text, toolUse, waitForStatus, type Caller } from "../sessions/helpers";

const DAY_MS = 86_400_000 * 0.00002;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function putRetention(tenantId: string, days: unknown): Promise<Response> {
  return callJson(
    "/v1/tenant/settings",
    "PUT",
    { webhook_origins: null, session_retention_days: days },
    await bearer({ tenantId, scopes: ["tenant:admin"] }),
  );
}

async function statusOf(who: Caller, id: string): Promise<number> {
  const res = await call(`/v1/sessions/${id}`, { headers: who.headers });
  await res.body?.cancel();
  return res.status;
}

/** Polls until the session answers 404 (erased), or fails after `timeoutMs`. */
async function waitErased(who: Caller, id: string, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while ((await statusOf(who, id)) !== 404) {
    if (Date.now() > deadline) throw new Error(`session ${id} was not erased within ${timeoutMs} ms`);
    await sleep(25);
  }
  return Date.now();
}

describe("PUT /v1/tenant/settings: session_retention_days", () => {
  it.each([0, 3651, 1.5, "30", -1])("refuses %j with 400", async (days) => {
    const res = await putRetention(freshTenant(), days);
    expect(res.status).toBe(400);
    expect((await readProblem(res)).errors?.[0]?.path).toBe("body.session_retention_days");
  });

  it("keeps 1 to 3650 days or null, and a PUT without it sets none", async () => {
    const tenantId = freshTenant();
    const headers = await bearer({ tenantId, scopes: ["tenant:admin"] });
    for (const days of [1, 3650, null]) {
      const res = await putRetention(tenantId, days);
      expect(await res.json()).toEqual({ webhook_origins: null, session_retention_days: days, traces: null, redaction: null });
    }
    await putRetention(tenantId, 7);
    expect(await (await callJson("/v1/tenant/settings", "PUT", { webhook_origins: null }, headers)).json()).toEqual({
      webhook_origins: null,
      session_retention_days: null,
      traces: null,
      redaction: null,
    });
    expect(await (await call("/v1/tenant/settings", { headers })).json()).toEqual({
      webhook_origins: null,
      session_retention_days: null,
      traces: null,
      redaction: null,
    });
  });
});

describe("the retention sweep", () => {
  it("erases a finished session a day after its last change, and keeps a waiting and a running one", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("retention"));
    const waitingModel = mockModel(uniqueKey("retention-wait"));
    const slowModel = mockModel(uniqueKey("retention-slow"));
    await model.script({ reply: { content: [text("done")] } }, { reply: { content: [text("again")] } });
    await waitingModel.script({ reply: { content: [toolUse("toolu_keep", "get_time")] } });
    // Runs past the day: the first call hangs until the test platform's 3 s model timeout, the retry answers.
    await slowModel.script({ hang: true }, { delay_ms: 300, reply: { content: [text("slow")] } });

    const finished = await createSession(who, { input: "hi", model: model.key });
    const touched = await createSession(who, { input: "hi", model: model.key });
    const waiting = await createSession(who, {
      input: "time?",
      model: waitingModel.key,
      tools: [{ type: "builtin", name: "get_time", requires_approval: true }],
    });
    await waitForStatus(who, finished.id, ["done"]);
    await waitForStatus(who, touched.id, ["done"]);
    await waitForStatus(who, waiting.id, ["waiting_approval"]);
    const running = await createSession(who, { input: "slow", model: slowModel.key });
    expect(running.status).toBe("running");
    const start = Date.now();
    expect((await putRetention(who.tenantId, 1)).status).toBe(200);

    // Half a day on, a change restarts the touched session's clock.
    await sleep(DAY_MS / 2);
    expect((await post(who, `/v1/sessions/${touched.id}/messages`, { input: "more" })).status).toBe(202);
    const touchedAt = (await waitForStatus(who, touched.id, ["done"])).updated_at;

    const erasedAt = await waitErased(who, finished.id, 5 * DAY_MS);
    expect(erasedAt - start).toBeGreaterThanOrEqual(DAY_MS / 2); // not before its day was up
    expect(await statusOf(who, touched.id)).toBe(200);
    // Waiting for a person longer than the retention: kept, still waiting.
    expect(await waitForStatus(who, waiting.id, ["waiting_approval"])).toMatchObject({ status: "waiting_approval" });
    // Running longer than the retention (and past a sweep or two): kept, and it finishes.
    await sleep(Math.max(0, Date.parse(running.updated_at) + DAY_MS + 200 - Date.now()));
    expect((await waitForStatus(who, running.id, ["running", "done"])).status).toBe("running");
    // However old its last change, the object keeps a running session itself.
    expect(await sessionStub(env, who.tenantId, running.id).eraseIfExpired(Date.now() + 10 * DAY_MS)).toEqual({ ok: true, value: false });
    await waitForStatus(who, running.id, ["done"], 10_000);

    // The touched session goes a day after its last change, not after its creation.
    const touchedErased = await waitErased(who, touched.id, 5 * DAY_MS);
    expect(touchedErased - Date.parse(touchedAt)).toBeGreaterThanOrEqual(DAY_MS);
    // Gone from the list too, as a delete leaves it; the waiting one stays listed.
    const list = (await (await call("/v1/sessions?limit=50", { headers: who.headers })).json()) as { data: Session[] };
    expect(list.data.map((s) => s.id)).not.toContain(finished.id);
    expect(list.data.map((s) => s.id)).toContain(waiting.id);
    expect(await statusOf(who, waiting.id)).toBe(200);
    // The session object decides last: asked directly as if the index saw it idle, it keeps itself.
    expect(await sessionStub(env, who.tenantId, waiting.id).eraseIfExpired(Date.now() + 10 * DAY_MS)).toEqual({ ok: true, value: false });
    expect(await statusOf(who, waiting.id)).toBe(200);
  });

  it("keeps every session while the tenant sets no retention", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("keep"));
    await model.script({ reply: { content: [text("done")] } });
    const session = await createSession(who, { input: "hi", model: model.key });
    await waitForStatus(who, session.id, ["done"]);
    await sleep(2 * DAY_MS);
    expect(await statusOf(who, session.id)).toBe(200);
  });
});
