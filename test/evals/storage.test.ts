/**
 * The agent store's migration 3 (datasets and evals) over storage the version before it wrote:
 * its agents stay, and datasets and evals work from then on.
 */
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AGENT_STORE_MIGRATIONS } from "../../src/agents/migrations";
import { insertAgent, insertVersion } from "../../src/agents/store";
import { agentStoreStub } from "../../src/objects";
import { latestVersion, migrate, schemaVersion } from "../../src/storage/migrations";
import { freshTenant } from "../support/tokens";

/** The agent store's version before datasets and evals. */
const BEFORE_EVALS = 2;

describe("AgentStore migration 3: datasets and evals", () => {
  it("keeps the agents of version 2 and adds the tables", async () => {
    const tenantId = freshTenant("mig-evals");
    await runInDurableObject(agentStoreStub(env, tenantId), async (_instance, state) => {
      migrate(state.storage, AGENT_STORE_MIGRATIONS.slice(0, BEFORE_EVALS));
      state.storage.kv.put("tenant_id", tenantId);
      insertAgent(state.storage.sql, {
        id: "agt_AAAAAAAAAAAAAAAAAAAAAAAA",
        name: "legacy",
        latest_version: 1,
        archived_at: null,
        created_by: "u",
        created_at: 1,
        updated_at: 1,
      });
      insertVersion(state.storage.sql, "agt_AAAAAAAAAAAAAAAAAAAAAAAA", 1, { name: "legacy" }, "u", 1);
      expect(state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name = 'datasets'").toArray()).toEqual([]);
    });
    await abortAllDurableObjects();
    // A stub made before the abort stays broken: the object is reached afresh.
    const store = agentStoreStub(env, tenantId);
    const created = await store.evals(tenantId, "createDataset", {
      name: "after",
      items: [{ input: "hi" }],
      createdBy: "u",
      now: Date.now(),
    });
    expect(created).toMatchObject({ ok: true, value: { name: "after", version: 1, item_count: 1 } });
    expect((await store.get(tenantId, "agt_AAAAAAAAAAAAAAAAAAAAAAAA")).ok).toBe(true);
    await runInDurableObject(store, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(AGENT_STORE_MIGRATIONS));
      expect(latestVersion(AGENT_STORE_MIGRATIONS)).toBeGreaterThanOrEqual(3);
    });
  });

  it("answers a store never used as empty, and writes nothing for the lookup", async () => {
    const tenantId = freshTenant("mig-evals-empty");
    const store = agentStoreStub(env, tenantId);
    expect(await store.evals(tenantId, "listDatasets", { limit: 10, cursor: null })).toEqual({ data: [], next_cursor: null });
    expect(await store.evals(tenantId, "getEval", { id: "evl_x" })).toEqual({ ok: false, reason: "eval_not_found" });
    await runInDurableObject(store, async (_instance, state) => expect(schemaVersion(state.storage)).toBe(0));
  });
});
