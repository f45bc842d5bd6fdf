/**
 * Hybrid memory search against the mock's deterministic embeddings (EMBEDDINGS_MODEL is set for
 * this project): each write stores its value's vector, a search finds an item by meaning where
 * its words miss, the two rankings are fused, and storage written before vectors existed is
 * migrated and searched.
 */
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { embed, EmbeddingError, embeddingsUrl } from "../../../src/memory/embeddings";
import * as memorySearch from "../../../src/memory/search";
import type { ScoredItem } from "../../../src/memory/types";
import { memoryStoreStub } from "../../../src/objects";
import { SCHEMA_VERSION_KEY } from "../../../src/storage/migrations";
import { migrateMemoryStoreTo } from "../../support/legacy-storage";
import { callJson } from "../../support/api";
import { mockModel } from "../../support/mock-client";
import { freshTenant } from "../../support/tokens";
import { type Caller, caller } from "../sessions/helpers";

const RW = ["memory:read", "memory:write"] as const;

async function put(who: Caller, namespace: string[], key: string, value: Record<string, unknown>): Promise<void> {
  const res = await callJson("/v1/memory/items", "PUT", { namespace, key, value }, who.headers);
  expect(res.status, await res.clone().text()).toBe(200);
}

async function search(who: Caller, body: Record<string, unknown>): Promise<ScoredItem[]> {
  const res = await callJson("/v1/memory/search", "POST", body, who.headers);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: ScoredItem[] }).data;
}

function vectorCount(tenantId: string): Promise<number> {
  return runInDurableObject(
    memoryStoreStub(env, tenantId),
    async (_instance, state) =>
      state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM item_vectors WHERE model = 'mock-embeddings'`).one().n,
  );
}

describe("hybrid memory search", () => {
  it("finds an item by meaning where its words miss, fused with the full-text ranking", async () => {
    const who = await caller(freshTenant(), RW);
    await put(who, ["users", "u_1"], "prefs", { note: "Customer speaks the French language at home" });
    await put(who, ["users", "u_1"], "travel", { note: "Books window seats on morning flights" });
    await put(who, ["users", "u_1"], "billing", { note: "Pays by invoice at the end of the month" });
    expect(await vectorCount(who.tenantId)).toBe(3);

    // "languages" is not a word of any item: full-text search alone finds nothing.
    const wordsOnly = await runInDurableObject(memoryStoreStub(env, who.tenantId), async (_instance, state) =>
      memorySearch.search(state.storage.sql, {
        prefixes: [["users"]],
        query: "languages",
        filter: {},
        limit: 10,
        offset: 0,
        now: Date.now(),
      }),
    );
    expect(wordsOnly).toEqual([]);
    const byMeaning = await search(who, { namespace_prefix: ["users"], query: "languages" });
    expect(byMeaning.map((item) => item.key)).toEqual(["prefs"]);

    // An item that both rankings place first stays first; the score is the fused one.
    const both = await search(who, { namespace_prefix: ["users", "u_1"], query: "which language at home" });
    expect(both[0]?.key).toBe("prefs");
    expect(both[0]!.score).toBeGreaterThan(both[1]?.score ?? 0);
    expect(both[0]!.score).toBeCloseTo(2 / 61, 5);

    // The filter and the prefix hold for the vector ranking too.
    expect(await search(who, { namespace_prefix: ["users", "u_2"], query: "languages" })).toEqual([]);
    expect(await search(who, { namespace_prefix: ["users"], query: "languages", filter: { note: "x" } })).toEqual([]);
  });

  it("pages a fused ranking without overlap or gaps", async () => {
    const who = await caller(freshTenant(), RW);
    const notes = [
      "language lessons",
      "languages spoken at home",
      "the language of contracts",
      "sign languages",
      "a language app",
      "travel plans",
      "languid summer",
    ];
    for (const [i, note] of notes.entries()) await put(who, ["n"], `k${i}`, { note });
    const whole = await search(who, { namespace_prefix: ["n"], query: "language", limit: 100 });
    expect(whole.length).toBeGreaterThanOrEqual(5);
    const paged: ScoredItem[] = [];
    for (let offset = 0; offset < whole.length + 2; offset++)
      paged.push(...(await search(who, { namespace_prefix: ["n"], query: "language", limit: 1, offset })));
    expect(paged.map((item) => [item.key, item.score])).toEqual(whole.map((item) => [item.key, item.score]));
  });

  it("keeps one vector per item, for its current value, and deletes it with the item", async () => {
    const who = await caller(freshTenant(), RW);
    await put(who, ["notes"], "a", { text: "the weather in Lisbon" });
    await put(who, ["notes"], "a", { text: "quarterly revenue figures" });
    expect(await vectorCount(who.tenantId)).toBe(1);
    expect((await search(who, { namespace_prefix: [], query: "revenues" })).map((item) => item.key)).toEqual(["a"]);
    expect(await search(who, { namespace_prefix: [], query: "weathers" })).toEqual([]);
    const removed = await callJson("/v1/memory/items?namespace=notes&key=a", "DELETE", undefined, who.headers);
    expect(removed.status).toBe(204);
    expect(await vectorCount(who.tenantId)).toBe(0);
  });

  it("asks the embeddings model once per write and once per search, with the item's text", async () => {
    const who = await caller(freshTenant(), RW);
    const model = mockModel("mock-embeddings");
    const before = (await model.requests()).length;
    await put(who, ["docs"], "k1", { title: "Refund policy", body: "thirty days" });
    await search(who, { namespace_prefix: ["docs"], query: "refunds" });
    await search(who, { namespace_prefix: ["docs"] });
    const asked = (await model.requests()).slice(before).map((request) => (request.body as { input: string[] }).input);
    expect(asked).toContainEqual(["k1 title Refund policy body thirty days"]);
    expect(asked).toContainEqual(["refunds"]);
    expect(asked).toHaveLength(2);
  });
});

describe("the embeddings client", () => {
  const config = { model: "m", baseUrl: "http://embed.invalid", apiKey: "k", minSimilarity: 0.3 };
  const answering =
    (status: number, body: unknown): typeof fetch =>
    async () =>
      new Response(JSON.stringify(body), { status });

  it("reads OpenAI's answer in index order, normalized, and refuses every malformed one", async () => {
    const [a, b] = await embed(
      config,
      ["x", "y"],
      answering(200, {
        data: [
          { index: 1, embedding: [0, 2] },
          { index: 0, embedding: [3, 4] },
        ],
      }),
    );
    expect([...a!]).toEqual([0.6000000238418579, 0.800000011920929]);
    expect([...b!]).toEqual([0, 1]);
    const malformed: [string[], number, unknown][] = [
      [["x"], 500, { error: "down" }],
      [["x"], 200, { data: [] }],
      [["x"], 200, { data: [{ index: 0, embedding: ["1"] }] }],
      [["x"], 200, { data: [{ index: 0, embedding: [] }] }],
      [
        ["x", "y"],
        200,
        {
          data: [
            { index: 0, embedding: [1] },
            { index: 1, embedding: [1, 2] },
          ],
        },
      ],
      [
        ["x", "y"],
        200,
        {
          data: [
            { index: 0, embedding: [1] },
            { index: 0, embedding: [2] },
          ],
        },
      ],
      [["x"], 200, "not json"],
    ];
    for (const [texts, status, body] of malformed) {
      await expect(embed(config, texts, answering(status, body)), JSON.stringify(body)).rejects.toThrow(EmbeddingError);
    }
    await expect(embed(config, ["x"], async () => Promise.reject(new TypeError("connection refused")))).rejects.toThrow(EmbeddingError);
    expect(embeddingsUrl("http://h:8000/v1")).toBe("http://h:8000/v1/embeddings");
    expect(embeddingsUrl("https://api.openai.com/")).toBe("https://api.openai.com/v1/embeddings");
  });
});

describe("memory store storage written by version 1 (before vectors)", () => {
  it("is migrated on wake: its items are read and found by their words, and a new write gets its vector", async () => {
    const who = await caller(freshTenant(), RW);
    const stub = memoryStoreStub(env, who.tenantId);
    await runInDurableObject(stub, async (_instance, state) => {
      // Version 1's tables and rows, written as version 1 wrote them.
      state.storage.sql.exec(`DROP TABLE IF EXISTS item_vectors`);
      state.storage.kv.put("tenant_id", who.tenantId);
      state.storage.kv.put("registered", true);
      migrateMemoryStoreTo(state.storage, 1);
      const sql = state.storage.sql;
      expect(state.storage.kv.get(SCHEMA_VERSION_KEY)).toBe(1);
      const now = Date.now();
      const id = sql
        .exec<{ id: number }>(
          `INSERT INTO items (namespace, key, value, version, created_by, created_at, updated_at, expires_at, ttl_ms, refresh_ttl)
           VALUES ('users.u_9', 'prefs', '{"language":"Dutch"}', 1, 'old-writer', ?, ?, NULL, NULL, 0) RETURNING id`,
          now,
          now,
        )
        .one().id;
      sql.exec(`INSERT INTO items_fts (rowid, body) VALUES (?, 'prefs language Dutch')`, id);
      sql.exec(
        `INSERT INTO item_versions (namespace, key, version, value, created_by, created_at) VALUES ('users.u_9', 'prefs', 1, '{"language":"Dutch"}', 'old-writer', ?)`,
        now,
      );
    });
    // Another instance of the object: it wakes on the stored version and migrates.
    await abortAllDurableObjects();
    expect((await search(who, { namespace_prefix: ["users"], query: "Dutch" })).map((item) => [item.key, item.created_by])).toEqual([
      ["prefs", "old-writer"],
    ]);
    await put(who, ["users", "u_9"], "prefs", { language: "Dutch", since: "2020" });
    expect(await vectorCount(who.tenantId)).toBe(1);
    expect((await search(who, { namespace_prefix: ["users"], query: "languages" })).map((item) => item.version)).toEqual([2]);
  });
});
