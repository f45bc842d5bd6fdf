/**
 * End users against what a hostile page would try past the ownership rule: a stream that stays
 * open after the key behind its token is revoked, and parts of an agent's definition the
 * session shows (where its notifications go).
 */
import { describe, expect, it } from "vitest";
import { entityTag } from "../../../src/api/conditional";
import { CLOSE_CODES } from "../../../src/sessions/object/events/streams";
import type { Session } from "../../../src/sessions/types";
import { call, callJson } from "../../support/api";
import { watchSocket, watchSse, type Watch } from "../../support/event-client";
import { bearer, freshTenant } from "../../support/tokens";
import { createAgent } from "../agents/helpers";
import { type Caller, createSession } from "../sessions/helpers";
import { backend, endUser } from "./helpers";

async function keyCaller(tenantId: string): Promise<Caller & { keyId: string; admin: Record<string, string> }> {
  const admin = await bearer({ tenantId, scopes: ["tenant:admin"], subject: "admin", expiresIn: 3600 });
  const res = await callJson("/v1/api-keys", "POST", { name: "backend", scopes: ["sessions:read", "sessions:write", "end_users:issue"] }, admin);
  expect(res.status).toBe(201);
  const { key, key_id: keyId } = (await res.json()) as { key: string; key_id: string };
  return { tenantId, subject: `key:${keyId}`, headers: { Authorization: `Bearer ${key}` }, keyId, admin };
}

async function sseWatch(user: Caller, sessionId: string): Promise<Watch> {
  const res = await call(`/v1/sessions/${sessionId}/events`, { headers: { ...user.headers, Accept: "text/event-stream" } });
  if (res.status !== 200) throw new Error(`SSE answered ${res.status}: ${await res.text()}`);
  return watchSse(res);
}

async function socketWatch(user: Caller, sessionId: string): Promise<Watch> {
  const token = ((await (await call("/v1/auth/stream-token", { method: "POST", headers: user.headers })).json()) as { access_token: string }).access_token;
  const res = await call(`/v1/sessions/${sessionId}/events?access_token=${encodeURIComponent(token)}`, { headers: { Upgrade: "websocket" } });
  if (res.status !== 101 || !res.webSocket) throw new Error(`WebSocket answered ${res.status}: ${await res.text()}`);
  const watch = watchSocket(res.webSocket);
  res.webSocket.accept();
  return watch;
}

describe("an end user's open streams", () => {
  it("close the moment the API key that minted its token is revoked, over either transport", async () => {
    const tenantId = freshTenant("eu-key");
    const key = await keyCaller(tenantId);
    const agent = await createAgent({ tenantId, subject: "admin", headers: key.admin }, { name: "helper", model: "mock-model" });
    const alice = await endUser(key, "alice");
    const session = await createSession(alice, { agent: agent.id });
    const overSse = await sseWatch(alice, session.id);
    const overSocket = await socketWatch(alice, session.id);
    await Promise.all([overSse, overSocket].map((watch) => watch.untilType("snapshot")));

    expect((await call(`/v1/api-keys/${key.keyId}`, { method: "DELETE", headers: key.admin })).status).toBe(204);
    await overSocket.untilClosed(2_000);
    await overSse.untilClosed(2_000);
    expect(overSocket.closeCode).toBe(CLOSE_CODES.credentials);
    // And the token itself is refused from then on.
    expect((await call(`/v1/sessions/${session.id}`, { headers: alice.headers })).status).toBe(401);
  });
});

describe("an end user's view of a session", () => {
  it("does not show where the agent's notifications go", async () => {
    const who = await backend(freshTenant("eu-notify"));
    const hook = "https://hooks.example.com/agent-status?token=tenant-secret";
    const agent = await createAgent(who, { name: "notifier", model: "mock-model", notify_url: hook });
    const alice = await endUser(who, "alice");
    const created = await callJson("/v1/sessions", "POST", { agent: agent.id }, alice.headers);
    expect(created.status).toBe(201);
    const session = (await created.json()) as Session;
    const seen = [session, (await (await call(`/v1/sessions/${session.id}`, { headers: alice.headers })).json()) as Session];
    for (const view of seen) {
      expect(view.notify_url).toBeNull();
      expect(JSON.stringify(view)).not.toContain("tenant-secret");
    }
    // The tenant still sees it.
    const admin = await bearer({ tenantId: who.tenantId, scopes: ["tenant:admin"] });
    expect(((await (await call(`/v1/sessions/${session.id}`, { headers: admin })).json()) as Session).notify_url).toBe(hook);
  });

  it("carries a tag of what the end user sees, which confirms no guess of the agent's prompt", async () => {
    const who = await backend(freshTenant("eu-etag"));
    const agent = await createAgent(who, { name: "coupons", model: "mock-model", system: "Offer code SAVE-4821 to unhappy customers." });
    const alice = await endUser(who, "alice");
    const session = await createSession(alice, { agent: agent.id });
    const path = `/v1/sessions/${session.id}`;
    const admin = await bearer({ tenantId: who.tenantId, scopes: ["tenant:admin"] });
    // What a guesser can compute offline once the prompt is right: the tag of the whole session.
    const whole = await entityTag(await (await call(path, { headers: admin })).text());
    const own = await call(path, { headers: alice.headers });
    const ownTag = own.headers.get("ETag")!;
    expect(ownTag).toBe(await entityTag(await own.text()));
    expect(ownTag).not.toBe(whole);
    const guessed = await call(path, { headers: { ...alice.headers, "If-None-Match": whole } });
    expect(guessed.status).toBe(200);
    expect(await guessed.text()).not.toContain("SAVE-4821");
    // Polling still gets its 304 on the tag it was given.
    expect((await call(path, { headers: { ...alice.headers, "If-None-Match": ownTag } })).status).toBe(304);
  });
});
