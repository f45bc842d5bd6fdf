/**
 * `max_memory_bytes`: memory counted as it is stored (the value, earlier versions, the search
 * index and the vector), a write past it refused with 409, and every delete giving its bytes back.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { PutItem } from "../../../src/memory/types";
import { memoryStoreStub, tenantIndexStub } from "../../../src/objects";
import { callJson, call, readProblem } from "../../support/api";
import { caller } from "../sessions/helpers";

const RW = ["memory:read", "memory:write"] as const;

/** About 60,000 characters of distinct words: about 140 KB as stored (item-bytes.ts). */
function bigValue(seed: number): Record<string, unknown> {
  const words: string[] = [];
  for (let i = 0, chars = 0; chars < 60_000; i++) {
    words.push(`w${seed}x${i.toString(36)}`);
    chars += words[words.length - 1]!.length + 1;
  }
  return { text: words.join(" ").slice(0, 60_000) };
}

async function counted(tenantId: string): Promise<{ total: number; sum: number; items: number }> {
  return runInDurableObject(memoryStoreStub(env, tenantId), (_instance, state) => {
    const sql = state.storage.sql;
    return {
      total: sql.exec<{ n: number }>("SELECT n FROM item_bytes").one().n,
      sum: sql.exec<{ n: number }>("SELECT COALESCE(SUM(bytes), 0) AS n FROM items").one().n,
      items: sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM items").one().n,
    };
  });
}

describe("memory bytes", () => {
  it("refuses a write past max_memory_bytes with 409, and a delete or a smaller version gives bytes back", async () => {
    const who = await caller(undefined, [...RW]);
    await tenantIndexStub(env, who.tenantId).setLimitOverrides(who.tenantId, { max_memory_bytes: 300_000 });
    const put = (key: string, value: Record<string, unknown>) =>
      callJson("/v1/memory/items", "PUT", { namespace: ["docs"], key, value }, who.headers);

    expect((await put("a", bigValue(1))).status).toBe(200);
    expect((await put("b", bigValue(2))).status).toBe(200);
    const two = await counted(who.tenantId);
    expect(two.total).toBe(two.sum);
    // Each item is counted at its value, its index and its vector: more than twice its 60,000 characters.
    expect(two.total).toBeGreaterThan(2 * 2 * 60_000);

    const third = await put("c", bigValue(3));
    expect(third.status).toBe(409);
    const problem = await readProblem(third);
    expect(problem.type).toContain("conflict");
    expect(problem.detail).toContain("max_memory_bytes");
    // Refused whole: nothing of it was kept.
    expect(await counted(who.tenantId)).toEqual(two);
    // A new version as large keeps the old one as well: past the limit too.
    expect((await put("b", bigValue(4))).status).toBe(409);

    expect((await call("/v1/memory/items?namespace=docs&key=a", { method: "DELETE", headers: who.headers })).status).toBe(204);
    const one = await counted(who.tenantId);
    expect(one.total).toBe(one.sum);
    expect(one.total).toBeLessThan(two.total / 2 + 1_000);
    expect((await put("c", bigValue(3))).status).toBe(200);

    // A version smaller than the item always fits, and its earlier version stays counted.
    const before = await counted(who.tenantId);
    expect((await put("b", { text: "short now" })).status).toBe(200);
    const after = await counted(who.tenantId);
    expect(after.total).toBe(after.sum);
    expect(after.total).toBeLessThan(before.total);
    expect(after.total).toBeGreaterThan(before.total - 80_000);
  });

  it("lets a write past max_memory_bytes through only when its item, kept versions included, grows no larger", async () => {
    const who = await caller(undefined, [...RW]);
    await tenantIndexStub(env, who.tenantId).setLimitOverrides(who.tenantId, { max_memory_bytes: 160_000 });
    const put = (value: Record<string, unknown>) =>
      callJson("/v1/memory/items", "PUT", { namespace: ["docs"], key: "a", value }, who.headers);
    expect((await put(bigValue(1))).status).toBe(200);
    // A smaller value, yet the item keeps the larger one as a version as well: refused.
    const smaller = { text: String(bigValue(2).text).slice(0, 54_000) };
    expect((await put(smaller)).status).toBe(409);
    // A value small enough that the item (the old value kept, its index text gone) takes less: through.
    const before = await counted(who.tenantId);
    expect((await put({ text: "short now" })).status).toBe(200);
    expect((await counted(who.tenantId)).total).toBeLessThan(before.total);
  });

  it("takes a put from a caller that sends no maxBytes (from before the limit) under the default", async () => {
    const who = await caller(undefined, [...RW]);
    expect((await callJson("/v1/memory/items", "PUT", { namespace: ["docs"], key: "a", value: { n: 1 } }, who.headers)).status).toBe(200);
    const older = {
      namespace: ["docs"],
      key: "b",
      value: { n: 2 },
      ttlSeconds: null,
      refreshTtl: false,
      createdBy: "old",
      maxItems: 100,
      now: Date.now(),
    };
    const result = await memoryStoreStub(env, who.tenantId).put(who.tenantId, older as unknown as PutItem);
    expect(result).toMatchObject({ ok: true, value: { key: "b", version: 1 } });
  });
});
