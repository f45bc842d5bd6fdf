/**
 * The agent store's canary tables (migration 4) against the storage its version before wrote: the
 * agents, versions and aliases kept, no canary on any alias, and a canary set from then on.
 */
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AGENT_STORE_MIGRATIONS } from "../../src/agents/migrations";
import { insertAgent, insertVersion, setAlias } from "../../src/agents/store";
import type { Agent, AgentResult } from "../../src/agents/types";
import { agentStoreStub } from "../../src/objects";
import { latestVersion, migrate, schemaVersion } from "../../src/storage/migrations";
import { freshTenant } from "../support/tokens";

/** The version the agent store's storage was at before canaries (renumbered at a merge, here only). */
const AGENT_STORE_BEFORE_CANARIES = 3;
const AGENT_ID = "agt_CCCCCCCCCCCCCCCCCCCCCCCC";

describe("agent store storage written by the version before canaries", () => {
  it("keeps its agents and aliases, shows no canary, and takes one from then on", async () => {
    const tenantId = freshTenant("mig-canary");
    await runInDurableObject(agentStoreStub(env, tenantId), async (_instance, state) => {
      migrate(state.storage, AGENT_STORE_MIGRATIONS.slice(0, AGENT_STORE_BEFORE_CANARIES));
      state.storage.kv.put("tenant_id", tenantId);
      insertAgent(state.storage.sql, {
        id: AGENT_ID,
        name: "legacy",
        latest_version: 2,
        archived_at: null,
        created_by: "u",
        created_at: 1,
        updated_at: 1,
      });
      insertVersion(state.storage.sql, AGENT_ID, 1, { name: "legacy", system: "one" }, "u", 1);
      insertVersion(state.storage.sql, AGENT_ID, 2, { name: "legacy", system: "two" }, "u", 2);
      setAlias(state.storage.sql, AGENT_ID, "production", 1, 3);
    });
    await abortAllDurableObjects();
    const store = agentStoreStub(env, tenantId);
    const before = (await store.get(tenantId, AGENT_ID)) as AgentResult<Agent>;
    expect(before.ok && { aliases: before.value.aliases, canaries: before.value.canaries }).toEqual({
      aliases: { production: 1 },
      canaries: {},
    });
    const set = (await store.setAlias(tenantId, AGENT_ID, "production", 1, Date.now(), undefined, {
      version: 2,
      percent: 30,
      rollback: null,
    })) as AgentResult<Agent>;
    expect(set.ok && set.value.canaries.production).toMatchObject({ version: 2, percent: 30, runs: 0, mean_score: null });
    const routed = await store.resolve(tenantId, AGENT_ID, { kind: "alias", alias: "production", bucket: 29 }, [1, 2]);
    expect(routed).toEqual({ ok: true, value: { agent_id: AGENT_ID, version: 2, canary: { alias: "production", arm: true } } });
    const kept = await store.resolve(tenantId, AGENT_ID, { kind: "alias", alias: "production", bucket: 30 }, [1, 2]);
    expect(kept).toEqual({ ok: true, value: { agent_id: AGENT_ID, version: 1, canary: { alias: "production", arm: false } } });
    await runInDurableObject(store, async (_instance, state) =>
      expect(schemaVersion(state.storage)).toBe(latestVersion(AGENT_STORE_MIGRATIONS)),
    );
  });
});
