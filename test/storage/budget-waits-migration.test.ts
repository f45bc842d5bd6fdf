import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub } from "../../src/objects";
import { latestVersion, schemaVersion } from "../../src/storage/migrations";
import { sessionsWaitingOn } from "../../src/tenants/budget-waits";
import { TENANT_INDEX_MIGRATIONS } from "../../src/tenants/migrations";
import { migrateIndexTo, userTables, writeLegacyIndex } from "../support/legacy-storage";
import { report } from "../tenants/helpers";
import { freshTenant } from "../support/tokens";

describe("TenantIndex storage written by version 15 (before budgets paused)", () => {
  it("keeps its sessions, and lists a session waiting on a budget under that budget from then on, until it reports moving on", async () => {
    const tenantId = freshTenant();
    await runInDurableObject(tenantIndexStub(env, tenantId), async (_instance, state) => {
      migrateIndexTo(state.storage, 15);
      writeLegacyIndex(state.storage, tenantId, { statements: [] });
    });
    await abortAllDurableObjects();
    const index = tenantIndexStub(env, tenantId);
    expect((await index.getSessionSummary(tenantId, "ses_legacy"))?.status).toBe("done");
    // A report of code from before (no budget_wait) is taken as before.
    await index.reportSession(tenantId, report("ses_old", { status: "running", api_key_id: "key_a" }));
    await index.reportSession(tenantId, report("ses_key", { status: "waiting_budget", budget_wait: "key_tokens", api_key_id: "key_a" }));
    await index.reportSession(tenantId, report("ses_own", { status: "waiting_budget", budget_wait: "session_tokens" }));
    await runInDurableObject(index, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(TENANT_INDEX_MIGRATIONS));
      expect(userTables(state.storage)).toContain("budget_waits");
      expect(sessionsWaitingOn(state.storage.sql, ["key_tokens"], "key_a")).toEqual(["ses_key"]);
      expect(sessionsWaitingOn(state.storage.sql, ["key_tokens"], "key_b")).toEqual([]);
      expect(sessionsWaitingOn(state.storage.sql, ["tenant_tokens", "tenant_cost", "subject_tokens"], null)).toEqual([]);
    });
    // Going on, the session leaves the list.
    await index.reportSession(tenantId, report("ses_key", { status: "running", api_key_id: "key_a", revision: 2 }));
    await runInDurableObject(index, async (_instance, state) => {
      expect(sessionsWaitingOn(state.storage.sql, ["key_tokens", "session_tokens"], null)).toEqual(["ses_own"]);
    });
  });
});
