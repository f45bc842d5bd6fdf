import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sessionStub } from "../../../src/objects";
import type { Message, Session } from "../../../src/session-config/types";
import { call, readProblem } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { caller, createSession, getJson, messagesOf, post, text, waitForStatus } from "./helpers";

describe("GET /v1/sessions/{id}", () => {
  it("returns the session", async () => {
    const who = await caller();
    const created = await createSession(who, { context: { strategy: "last_messages", last_messages: 6 } });
    expect(created.context).toEqual({ strategy: "last_messages", last_messages: 6 });
    expect(await getJson<Session>(who, `/v1/sessions/${created.id}`)).toEqual(created);
  });

  it.each(["ses_doesnotexist0000000000000", "not-a-session", "ses_%2E%2E%2Fx"])("answers 404 for %s", async (id) => {
    const res = await call(`/v1/sessions/${id}`, { headers: (await caller()).headers });
    expect(res.status).toBe(404);
    await readProblem(res);
  });
});

describe("GET /v1/sessions/{id}/messages", () => {
  it("pages the history by seq, with after and with cursor", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [text("one")] } }, { reply: { content: [text("two")] } });
    const session = await createSession(who, { input: "first", model: model.key });
    await waitForStatus(who, session.id, ["done"]);
    expect((await post(who, `/v1/sessions/${session.id}/messages`, { input: "second" })).status).toBe(202);
    await waitForStatus(who, session.id, ["done"]);

    const page1 = await getJson<{ data: Message[]; next_cursor: string | null }>(who, `/v1/sessions/${session.id}/messages?limit=3`);
    expect(page1.data.map((m) => m.seq)).toEqual([1, 2, 3]);
    expect(page1.next_cursor).toBe("3");
    const page2 = await getJson<{ data: Message[]; next_cursor: string | null }>(who, `/v1/sessions/${session.id}/messages?cursor=3`);
    expect(page2).toEqual({ data: [expect.objectContaining({ seq: 4, role: "assistant", content: [text("two")] })], next_cursor: null });
    const after = await getJson<{ data: Message[] }>(who, `/v1/sessions/${session.id}/messages?after=2`);
    expect(after.data.map((m) => m.seq)).toEqual([3, 4]);
  });

  it("refuses after and cursor together", async () => {
    const who = await caller();
    const session = await createSession(who);
    expect((await call(`/v1/sessions/${session.id}/messages?after=1&cursor=2`, { headers: who.headers })).status).toBe(400);
  });
});

describe("POST /v1/sessions/{id}/messages", () => {
  it("adds the message and starts a run: 202", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const session = await createSession(who, { model: model.key });
    const res = await post(who, `/v1/sessions/${session.id}/messages`, { input: "hello" });
    expect(res.status).toBe(202);
    expect(((await res.json()) as Session).status).toBe("running");
    await waitForStatus(who, session.id, ["done"]);
    expect((await messagesOf(who, session.id)).map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("answers 409 while a run is going", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script({ hang: true });
    const session = await createSession(who, { input: "wait", model: model.key });
    const res = await post(who, `/v1/sessions/${session.id}/messages`, { input: "again" });
    expect(res.status).toBe(409);
    expect((await readProblem(res)).detail).toMatch(/already running/);
    expect((await post(who, `/v1/sessions/${session.id}/cancel`)).status).toBe(200);
  });

  it("refuses a body without input", async () => {
    const who = await caller();
    const session = await createSession(who);
    expect((await post(who, `/v1/sessions/${session.id}/messages`, {})).status).toBe(400);
  });
});

describe("cancel, pause and resume", () => {
  it("pauses a running session, resumes it, and cancels it", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script({ hang: true }, { hang: true });
    const session = await createSession(who, { input: "go", model: model.key });
    await model.waitForRequests(1);

    const paused = await post(who, `/v1/sessions/${session.id}/pause`);
    expect(paused.status).toBe(200);
    expect(((await paused.json()) as Session).status).toBe("paused");

    const resumed = await post(who, `/v1/sessions/${session.id}/resume`);
    expect(resumed.status).toBe(200);
    expect(((await resumed.json()) as Session).status).toBe("running");
    await model.waitForRequests(2);

    const cancelled = await post(who, `/v1/sessions/${session.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect((await cancelled.json()) as Session).toMatchObject({ status: "cancelled", stop_reason: "cancelled" });
  });

  it.each(["cancel", "pause", "resume"])("answers 409 to %s on an idle session", async (action) => {
    const who = await caller();
    const session = await createSession(who);
    const res = await post(who, `/v1/sessions/${session.id}/${action}`);
    expect(res.status).toBe(409);
    expect((await readProblem(res)).status).toBe(409);
  });

  it("answers 409 to resume on a running session", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script({ hang: true });
    const session = await createSession(who, { input: "go", model: model.key });
    expect((await post(who, `/v1/sessions/${session.id}/resume`)).status).toBe(409);
    expect((await post(who, `/v1/sessions/${session.id}/cancel`)).status).toBe(200);
  });
});

describe("DELETE /v1/sessions/{id}", () => {
  it("cancels and erases a running session: 204, then gone from reads and the list", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script({ hang: true });
    const session = await createSession(who, { input: "go", model: model.key });
    const res = await call(`/v1/sessions/${session.id}`, { method: "DELETE", headers: who.headers });
    expect(res.status).toBe(204);
    expect((await call(`/v1/sessions/${session.id}`, { headers: who.headers })).status).toBe(404);
    expect((await call(`/v1/sessions/${session.id}/messages`, { headers: who.headers })).status).toBe(404);
    expect((await getJson<{ data: unknown[] }>(who, "/v1/sessions")).data).toEqual([]);
    expect((await call(`/v1/sessions/${session.id}`, { method: "DELETE", headers: who.headers })).status).toBe(404);
  });

  it("removes a listed session whose session object is already erased (a retry after a half-done delete)", async () => {
    const who = await caller();
    const session = await createSession(who, {});
    await sessionStub(env, who.tenantId, session.id).erase();
    expect((await getJson<{ data: { id: string }[] }>(who, "/v1/sessions")).data.map((s) => s.id)).toEqual([session.id]);
    const other = await caller(who.tenantId, ["sessions:read", "sessions:write"], "user-2");
    expect((await call(`/v1/sessions/${session.id}`, { method: "DELETE", headers: other.headers })).status).toBe(404);
    expect((await call(`/v1/sessions/${session.id}`, { method: "DELETE", headers: who.headers })).status).toBe(204);
    expect((await getJson<{ data: unknown[] }>(who, "/v1/sessions")).data).toEqual([]);
  });
});
