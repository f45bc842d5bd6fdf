/** Idempotency-Key on the session POSTs that create or start something. */
import { describe, expect, it } from "vitest";
import { PROBLEM_TYPE_BASE } from "../../../src/api/errors";
import type { Session } from "../../../src/session-config/types";
import { callJson, readProblem } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { caller, createSession, getJson, messagesOf, waitForStatus } from "./helpers";

describe("Idempotency-Key", () => {
  it("replays a create with the same key and body: the same session, marked as replayed", async () => {
    const who = await caller();
    const headers = { ...who.headers, "Idempotency-Key": crypto.randomUUID() };
    const body = { metadata: { purpose: "retry test" } };

    const first = await callJson("/v1/sessions", "POST", body, headers);
    expect(first.status).toBe(201);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    const created = (await first.json()) as Session;

    const again = await callJson("/v1/sessions", "POST", body, headers);
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.headers.get("Location")).toBe(`/v1/sessions/${created.id}`);
    expect(((await again.json()) as Session).id).toBe(created.id);
    expect((await getJson<{ data: unknown[] }>(who, "/v1/sessions")).data).toHaveLength(1);
  });

  it("answers 422 when the same key comes with a different body", async () => {
    const who = await caller();
    const headers = { ...who.headers, "Idempotency-Key": crypto.randomUUID() };
    expect((await callJson("/v1/sessions", "POST", { metadata: { n: "1" } }, headers)).status).toBe(201);
    const res = await callJson("/v1/sessions", "POST", { metadata: { n: "2" } }, headers);
    expect(res.status).toBe(422);
    expect((await readProblem(res)).type).toBe(`${PROBLEM_TYPE_BASE}idempotency_conflict`);
  });

  it("keeps keys of different callers apart", async () => {
    const key = crypto.randomUUID();
    const a = await caller();
    const b = await caller(a.tenantId, ["sessions:read", "sessions:write"], "user-2");
    const first = (await (await callJson("/v1/sessions", "POST", {}, { ...a.headers, "Idempotency-Key": key })).json()) as Session;
    const second = await callJson("/v1/sessions", "POST", {}, { ...b.headers, "Idempotency-Key": key });
    expect(second.status).toBe(201);
    expect(second.headers.get("Idempotent-Replayed")).toBeNull();
    expect(((await second.json()) as Session).id).not.toBe(first.id);
  });

  it("does not add a message twice when a retry carries the same key", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const session = await createSession(who, { model: model.key });
    const headers = { ...who.headers, "Idempotency-Key": crypto.randomUUID() };
    expect((await callJson(`/v1/sessions/${session.id}/messages`, "POST", { input: "once" }, headers)).status).toBe(202);
    await waitForStatus(who, session.id, ["done"]);
    const retry = await callJson(`/v1/sessions/${session.id}/messages`, "POST", { input: "once" }, headers);
    expect(retry.status).toBe(202);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect((await messagesOf(who, session.id)).filter((m) => m.role === "user")).toHaveLength(1);
    expect(await model.requests()).toHaveLength(1);
  });
});
