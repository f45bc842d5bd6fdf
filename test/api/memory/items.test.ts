/**
 * Memory through the API: items written in versions, read, deleted; search ranked by relevance
 * among distractors, filtered, within a prefix; namespaces listed; expiry; the item cap; scopes
 * and tenants kept apart.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { memoryStoreStub, tenantIndexStub } from "../../../src/objects";
import type { MemoryItem, ScoredItem } from "../../../src/memory/types";
import { call, callJson, readProblem } from "../../support/api";
import { freshTenant } from "../../support/tokens";
import { type Caller, caller } from "../sessions/helpers";

const RW = ["memory:read", "memory:write"] as const;

async function put(who: Caller, body: Record<string, unknown>): Promise<Response> {
  return callJson("/v1/memory/items", "PUT", body, who.headers);
}

async function putOk(
  who: Caller,
  namespace: string[],
  key: string,
  value: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<MemoryItem> {
  const res = await put(who, { namespace, key, value, ...extra });
  if (res.status !== 200) throw new Error(`put answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as MemoryItem;
}

async function search(who: Caller, body: Record<string, unknown>): Promise<ScoredItem[]> {
  const res = await callJson("/v1/memory/search", "POST", body, who.headers);
  if (res.status !== 200) throw new Error(`search answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { data: ScoredItem[] }).data;
}

describe("memory items", () => {
  it("writes versions, reads the latest, keeps the last ten, and deletes the item with them", async () => {
    const who = await caller(undefined, [...RW], "writer-1");
    const first = await putOk(who, ["users", "u_1"], "prefs", { language: "French" });
    expect(first).toMatchObject({ namespace: ["users", "u_1"], key: "prefs", version: 1, created_by: "writer-1", expires_at: null });
    for (let i = 2; i <= 12; i++) await putOk(who, ["users", "u_1"], "prefs", { language: "French", edit: i });
    const got = (await (await call("/v1/memory/items?namespace=users.u_1&key=prefs", { headers: who.headers })).json()) as MemoryItem;
    expect(got).toMatchObject({ version: 12, value: { language: "French", edit: 12 }, created_by: "writer-1" });
    const versions = (await (await call("/v1/memory/items/versions?namespace=users.u_1&key=prefs", { headers: who.headers })).json()) as {
      data: { version: number }[];
    };
    expect(versions.data.map((v) => v.version)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3]);

    expect((await call("/v1/memory/items?namespace=users.u_1&key=prefs", { method: "DELETE", headers: who.headers })).status).toBe(204);
    expect((await call("/v1/memory/items?namespace=users.u_1&key=prefs", { headers: who.headers })).status).toBe(404);
    expect((await call("/v1/memory/items/versions?namespace=users.u_1&key=prefs", { headers: who.headers })).status).toBe(404);
    expect((await call("/v1/memory/items?namespace=users.u_1&key=prefs", { method: "DELETE", headers: who.headers })).status).toBe(404);
    expect((await putOk(who, ["users", "u_1"], "prefs", { language: "Dutch" })).version).toBe(1);
  });

  it("ranks the relevant item first among distractors, within the prefix, and filters exactly", async () => {
    const who = await caller(undefined, [...RW]);
    await putOk(who, ["users", "u_1"], "diet", { note: "vegetarian, allergic to peanuts", kind: "health" });
    await putOk(who, ["users", "u_1"], "travel", { note: "prefers window seats on long flights", kind: "travel" });
    await putOk(who, ["users", "u_1"], "language", { note: "writes in French; answer in French please", kind: "language" });
    await putOk(who, ["users", "u_1"], "tone", { note: "likes short answers", kind: "style", formal: false });
    await putOk(who, ["users", "u_2"], "language", { note: "French French French", kind: "language" });
    await putOk(who, ["users", "u_10"], "language", { note: "French", kind: "language" });

    const ranked = await search(who, { namespace_prefix: ["users", "u_1"], query: "which language? French" });
    expect(ranked[0]).toMatchObject({ key: "language", namespace: ["users", "u_1"] });
    expect(ranked.every((item) => item.namespace.join(".") === "users.u_1")).toBe(true);
    expect(ranked[0]!.score).toBeGreaterThan(0);

    expect((await search(who, { namespace_prefix: ["users"], query: "French" })).map((item) => item.namespace[1]).sort()).toEqual([
      "u_1",
      "u_10",
      "u_2",
    ]);
    expect((await search(who, { namespace_prefix: ["users", "u_1"], filter: { kind: "travel" } })).map((item) => item.key)).toEqual([
      "travel",
    ]);
    expect((await search(who, { namespace_prefix: ["users", "u_1"], filter: { formal: false } })).map((item) => item.key)).toEqual([
      "tone",
    ]);
    expect(await search(who, { namespace_prefix: ["users", "u_1"], filter: { formal: 0 } })).toEqual([]);
    // Query syntax is never interpreted: operators and quotes are words or nothing.
    expect(await search(who, { query: '" OR * NEAR(' })).toEqual([]);
    expect((await search(who, { query: "peanuts AND NOT" })).map((item) => item.key)).toEqual(["diet"]);
    expect((await search(who, { namespace_prefix: ["users", "u_1"], limit: 2, offset: 1 })).length).toBe(2);
  });

  it("lists namespaces within a prefix, cut to a depth, paged", async () => {
    const who = await caller(undefined, [...RW]);
    for (const namespace of [
      ["users", "a"],
      ["users", "b", "notes"],
      ["users", "b"],
      ["teams", "x"],
    ])
      await putOk(who, namespace, "k", { v: 1 });
    const list = async (body: Record<string, unknown>) =>
      (await (await callJson("/v1/memory/namespaces", "POST", body, who.headers)).json()) as {
        data: string[][];
        next_cursor: string | null;
      };
    expect((await list({})).data).toEqual([
      ["teams", "x"],
      ["users", "a"],
      ["users", "b"],
      ["users", "b", "notes"],
    ]);
    expect((await list({ prefix: ["users"], max_depth: 2 })).data).toEqual([
      ["users", "a"],
      ["users", "b"],
    ]);
    const first = await list({ limit: 2 });
    expect(first.data).toHaveLength(2);
    expect((await list({ limit: 2, cursor: first.next_cursor })).data).toEqual([
      ["users", "b"],
      ["users", "b", "notes"],
    ]);
    expect((await callJson("/v1/memory/namespaces", "POST", { cursor: "garbage" }, who.headers)).status).toBe(400);
  });

  it("never returns an expired item, sweeps it, and restarts the time to live of one that asks on read", async () => {
    const who = await caller(undefined, [...RW]);
    const item = await putOk(who, ["sessions"], "short", { note: "soon gone" }, { ttl_seconds: 60 });
    expect(Date.parse(item.expires_at!) - Date.parse(item.updated_at)).toBe(60_000);
    await putOk(who, ["sessions"], "sliding", { note: "kept while read" }, { ttl_seconds: 60, refresh_ttl: true });
    // An hour passes: move both items' expiry into the past, as the clock would.
    await runInDurableObject(memoryStoreStub(env, who.tenantId), (_instance, state) => {
      state.storage.sql.exec("UPDATE items SET expires_at = ? WHERE key = 'short'", Date.now() - 1);
      state.storage.sql.exec("UPDATE items SET expires_at = ? WHERE key = 'sliding'", Date.now() + 5_000);
    });
    expect((await call("/v1/memory/items?namespace=sessions&key=short", { headers: who.headers })).status).toBe(404);
    expect(await search(who, { query: "gone" })).toEqual([]);
    const slid = (await (await call("/v1/memory/items?namespace=sessions&key=sliding", { headers: who.headers })).json()) as MemoryItem;
    expect(Date.parse(slid.expires_at!)).toBeGreaterThan(Date.now() + 50_000);
    const swept = await runInDurableObject(memoryStoreStub(env, who.tenantId), async (instance, state) => {
      await (instance as unknown as { alarm(): Promise<void> }).alarm();
      return state.storage.sql.exec("SELECT key FROM items ORDER BY key").toArray();
    });
    expect(swept).toEqual([{ key: "sliding" }]);
  });

  it("refuses a new item past max_memory_items with 409, while rewriting one goes on", async () => {
    const who = await caller(undefined, [...RW]);
    await tenantIndexStub(env, who.tenantId).setLimitOverrides(who.tenantId, { max_memory_items: 2 });
    await putOk(who, ["a"], "one", { v: 1 });
    await putOk(who, ["a"], "two", { v: 2 });
    const third = await put(who, { namespace: ["a"], key: "three", value: { v: 3 } });
    expect(third.status).toBe(409);
    expect((await readProblem(third)).detail).toContain("max_memory_items");
    expect((await putOk(who, ["a"], "two", { v: 22 })).version).toBe(2);
  });

  it("answers bad input with 400 at its field", async () => {
    const who = await caller(undefined, [...RW]);
    const cases: [Record<string, unknown>, string][] = [
      [{ namespace: [], key: "k", value: {} }, "body.namespace"],
      [{ namespace: ["a", "b", "c", "d", "e"], key: "k", value: {} }, "body.namespace"],
      [{ namespace: ["a.b"], key: "k", value: {} }, "body.namespace.0"],
      [{ namespace: [".."], key: "k", value: {} }, "body.namespace.0"],
      [{ namespace: ["ü"], key: "k", value: {} }, "body.namespace.0"],
      [{ namespace: ["a"], key: "", value: {} }, "body.key"],
      [{ namespace: ["a"], key: "k".repeat(257), value: {} }, "body.key"],
      [{ namespace: ["a"], key: "k", value: [1] }, "body.value"],
      [{ namespace: ["a"], key: "k", value: "text" }, "body.value"],
      // A key the record would drop without a word.
      [{ namespace: ["a"], key: "k", value: JSON.parse('{"__proto__": {"admin": true}, "b": 2}') }, "body.value"],
      [{ namespace: ["a"], key: "k", value: { big: "x".repeat(70_000) } }, "body.value"],
      [{ namespace: ["a"], key: "k", value: {}, ttl_seconds: 59 }, "body.ttl_seconds"],
    ];
    for (const [body, path] of cases) {
      const res = await put(who, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect((await readProblem(res)).errors?.[0]?.path, JSON.stringify(body).slice(0, 80)).toBe(path);
    }
    for (const query of ["namespace=&key=k", "namespace=a..b&key=k", "namespace=a.b.c.d.e&key=k", "namespace=a%2Eb%2E&key=k", "key=k"]) {
      expect((await call(`/v1/memory/items?${query}`, { headers: who.headers })).status, query).toBe(400);
    }
    expect((await callJson("/v1/memory/search", "POST", { filter: { "a.b": 1 } }, who.headers)).status).toBe(400);
    expect((await callJson("/v1/memory/search", "POST", { filter: { a: { nested: 1 } } }, who.headers)).status).toBe(400);
    expect((await callJson("/v1/memory/search", "POST", { query: "x".repeat(1001) }, who.headers)).status).toBe(400);
  });

  it("keeps tenants apart and needs its scopes", async () => {
    const who = await caller(undefined, [...RW]);
    await putOk(who, ["shared"], "secret", { note: "tenant one only" });
    const other = await caller(freshTenant(), [...RW]);
    expect((await call("/v1/memory/items?namespace=shared&key=secret", { headers: other.headers })).status).toBe(404);
    expect(await search(other, { query: "tenant one only" })).toEqual([]);
    const reader = await caller(who.tenantId, ["memory:read"]);
    expect((await put(reader, { namespace: ["x"], key: "k", value: {} })).status).toBe(403);
    expect((await call("/v1/memory/items?namespace=shared&key=secret", { headers: reader.headers })).status).toBe(200);
    const sessionsOnly = await caller(who.tenantId, ["sessions:read", "sessions:write"]);
    expect((await call("/v1/memory/items?namespace=shared&key=secret", { headers: sessionsOnly.headers })).status).toBe(403);
    const admin = await caller(who.tenantId, ["tenant:admin"]);
    expect((await put(admin, { namespace: ["x"], key: "k", value: {} })).status).toBe(200);
  });
});
