/**
 * End users against what a hostile page would try past the ownership rule: a stream that stays
 * open after the key behind its token is revoked, and parts of an agent's definition the
 * session shows (where its notifications go).
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { entityTag } from "../../../src/api/conditional";
import { MAX_END_USER_MEMORY_ITEMS } from "../../../src/memory/end-user";
import { memoryStoreStub } from "../../../src/objects";
import { CLOSE_CODES } from "../../../src/sessions/object/events/streams";
import type { Session } from "../../../src/session-config/types";
import { call, callJson } from "../../support/api";
import { watchSocket, watchSse, type Watch } from "../../support/event-client";
import { bearer, freshTenant } from "../../support/tokens";
import { createAgent } from "../agents/helpers";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { type Caller, createSession, toolCallsOf, toolUse, text, waitForStatus } from "../sessions/helpers";
import { backend, endUser } from "./helpers";

async function keyCaller(tenantId: string): Promise<Caller & { keyId: string; admin: Record<string, string> }> {
  const admin = await bearer({ tenantId, scopes: ["tenant:admin"], subject: "admin", expiresIn: 3600 });
  const res = await callJson(
    "/v1/api-keys",
    "POST",
    { name: "backend", scopes: ["sessions:read", "sessions:write", "end_users:issue"] },
    admin,
  );
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
  const token = (
    (await (await call("/v1/auth/stream-token", { method: "POST", headers: user.headers })).json()) as { access_token: string }
  ).access_token;
  const res = await call(`/v1/sessions/${sessionId}/events?access_token=${encodeURIComponent(token)}`, {
    headers: { Upgrade: "websocket" },
  });
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

describe("an end user's memory", () => {
  it("holds at most MAX_END_USER_MEMORY_ITEMS items, through the API and a session's tools, and leaves the others' room alone", async () => {
    const who = await backend(freshTenant("eu-memfull"));
    const scopes = { scopes: ["sessions:read", "sessions:write", "memory:read", "memory:write"] };
    const alice = await endUser(who, "alice", scopes);
    const bob = await endUser(who, "bob", scopes);
    const put = (user: Caller, namespace: string[], key: string) =>
      callJson("/v1/memory/items", "PUT", { namespace, key, value: { n: 1 } }, user.headers);
    expect((await put(alice, ["users", "alice"], "first")).status).toBe(200);
    // Her page has written all but one of her items (rows written directly: a thousand puts take minutes).
    await runInDurableObject(memoryStoreStub(env, who.tenantId), async (_instance, state) => {
      for (let i = 1; i < MAX_END_USER_MEMORY_ITEMS; i++) {
        state.storage.sql.exec(
          `INSERT INTO items (namespace, key, value, version, created_by, created_at, updated_at) VALUES ('users.alice.notes', ?, '{}', 1, 'end_user:alice', 0, 0)`,
          `k${i}`,
        );
      }
    });
    const refused = await put(alice, ["users", "alice"], "one-more");
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(
      new RegExp(`end user keeps at most ${MAX_END_USER_MEMORY_ITEMS}`),
    );
    // A new version of an item she has is no new item; bob and the tenant's backend still write.
    expect((await put(alice, ["users", "alice"], "first")).status).toBe(200);
    expect((await put(bob, ["users", "bob"], "first")).status).toBe(200);
    expect((await put(who, ["users", "alice"], "from-backend")).status).toBe(200);

    const model = mockModel(uniqueKey("eu-memfull"));
    await model.script(
      { reply: { content: [toolUse("c1", "memory_put", { key: "via-tool", value: { a: 1 } })] } },
      { reply: { content: [text("done")] } },
    );
    const agent = await createAgent(who, { name: "keeper", model: model.key, memory: { namespaces: [["users"]], write: [["users"]] } });
    const session = await createSession(alice, { agent: agent.id, input: "remember" });
    await waitForStatus(alice, session.id, ["done", "failed"], 15_000);
    expect((await toolCallsOf(alice, session.id)).find((c) => c.id === "c1")).toMatchObject({
      is_error: true,
      output: expect.stringMatching(/Memory is full/),
    });
  }, 30_000);
});
