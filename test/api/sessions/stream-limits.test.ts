/**
 * `max_streams_per_session` and `max_streams_per_tenant` through the gateway: the stream past
 * either cap is a 429 problem, a closed stream frees its place, and a stream that went away
 * without telling the tenant index stops counting once the index recounts the live ones.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub } from "../../../src/objects";
import { SESSION_STREAM_RETRY_AFTER_SECONDS } from "../../../src/sessions/object/events/open-stream";
import { call, readProblem } from "../../support/api";
import { type Watch, watchSocket, watchSse } from "../../support/event-client";
import { caller, type Caller, createSession } from "./helpers";

async function open(who: Caller, id: string, mode: "sse" | "websocket"): Promise<Response> {
  const headers = mode === "sse" ? { ...who.headers, Accept: "text/event-stream" } : { ...who.headers, Upgrade: "websocket" };
  return call(`/v1/sessions/${id}/events`, { headers });
}

async function watch(who: Caller, id: string, mode: "sse" | "websocket"): Promise<Watch> {
  const res = await open(who, id, mode);
  if (mode === "sse") {
    if (res.status !== 200) throw new Error(`SSE answered ${res.status}: ${await res.text()}`);
    const sse = watchSse(res);
    await sse.untilType("snapshot");
    return sse;
  }
  if (res.status !== 101 || !res.webSocket) throw new Error(`WebSocket answered ${res.status}: ${await res.text()}`);
  const socket = watchSocket(res.webSocket);
  res.webSocket.accept();
  await socket.untilType("snapshot");
  return socket;
}

/** Opens a stream, again while it is refused (a close reaches the counts just after the client sees it), until `timeoutMs`. */
async function retryUntilOpen(who: Caller, id: string, mode: "sse" | "websocket", timeoutMs = 5_000): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await open(who, id, mode);
    if (res.status !== 429 || Date.now() > deadline) return res;
    await res.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("max_streams_per_session", () => {
  it.each(["sse", "websocket"] as const)(
    "refuses the stream past it over %s with a 429 problem, and a closed stream frees its place",
    async (mode) => {
      const who = await caller();
      await tenantIndexStub(env, who.tenantId).setLimitOverrides(who.tenantId, { max_streams_per_session: 3 });
      const session = await createSession(who);
      const other = await createSession(who);
      const watches = [await watch(who, session.id, "sse"), await watch(who, session.id, "websocket"), await watch(who, session.id, mode)];

      const refused = await open(who, session.id, mode);
      expect(refused.status).toBe(429);
      const problem = await readProblem(refused);
      expect(problem).toMatchObject({ code: "rate_limited", status: 429 });
      expect(problem.detail).toContain("max_streams_per_session");
      // Every 429 says when to come back.
      expect(refused.headers.get("Retry-After")).toBe(String(SESSION_STREAM_RETRY_AFTER_SECONDS));
      // Another session of the tenant is not touched by this one's cap.
      (await watch(who, other.id, mode)).stop();

      watches[0]!.stop();
      await watches[0]!.untilClosed();
      const reopened = await retryUntilOpen(who, session.id, mode);
      expect(reopened.status).toBe(mode === "sse" ? 200 : 101);
      if (mode === "sse") await reopened.body?.cancel();
      else reopened.webSocket?.accept();
      for (const w of watches) w.stop();
    },
  );
});

describe("max_streams_per_tenant", () => {
  it("refuses the stream past it on any session with a 429 and Retry-After, and a closed stream frees its place", async () => {
    const who = await caller();
    await tenantIndexStub(env, who.tenantId).setLimitOverrides(who.tenantId, { max_streams_per_tenant: 3 });
    const sessions = [await createSession(who), await createSession(who), await createSession(who)];
    const watches = [
      await watch(who, sessions[0]!.id, "websocket"),
      await watch(who, sessions[1]!.id, "sse"),
      await watch(who, sessions[1]!.id, "websocket"),
    ];

    for (const mode of ["sse", "websocket"] as const) {
      const refused = await open(who, sessions[2]!.id, mode);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
      expect((await readProblem(refused)).detail).toContain("max_streams_per_tenant");
    }
    // Another tenant's streams are not counted here.
    const stranger = await caller();
    (await watch(stranger, (await createSession(stranger)).id, "websocket")).stop();

    watches[0]!.stop();
    await watches[0]!.untilClosed();
    const reopened = await retryUntilOpen(who, sessions[2]!.id, "websocket");
    expect(reopened.status).toBe(101);
    reopened.webSocket?.accept();
    for (const w of watches) w.stop();
  });

  it("stops counting a stream that went away without telling, once the index recounts the live ones", async () => {
    const who = await caller();
    const index = tenantIndexStub(env, who.tenantId);
    await index.setLimitOverrides(who.tenantId, { max_streams_per_tenant: 2 });
    const session = await createSession(who);
    const live = await watch(who, session.id, "websocket");
    // A row whose stream is gone (its object restarted before it could say so), noted recently.
    const ghost = await index.noteEventStream(who.tenantId, {
      sessionId: session.id,
      streamId: "gone-stream",
      keyId: null,
      expiresAt: Date.now() + 3_600_000,
      now: Date.now(),
    });
    expect(ghost.ok).toBe(true);
    await runInDurableObject(index, (_i, state) => state.storage.kv.delete("streams_recounted_at"));

    // At the cap by the rows, not by the live streams: the recount drops the ghost and admits this one.
    const admitted = await open(who, session.id, "sse");
    expect(admitted.status).toBe(200);
    await admitted.body?.cancel();
    const rows = await runInDurableObject(index, (_i, state) =>
      state.storage.sql
        .exec("SELECT stream_id FROM open_streams")
        .toArray()
        .map((row) => row.stream_id),
    );
    expect(rows).not.toContain("gone-stream");
    live.stop();
  });
});
