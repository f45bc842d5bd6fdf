/**
 * The audit log's storage: each object's migration against the storage its previous version
 * left (each previous version one named constant), the change and its entry committed together
 * (an entry that cannot be written takes its change with it), and an outbox entry whose
 * hand-over a crash cut off reaching the tenant's log from the alarm, once.
 */
import { abortAllDurableObjects, env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentStore } from "../../src/agents/agent-store";
import { AGENT_STORE_MIGRATIONS } from "../../src/agents/migrations";
import type { TenantIndex } from "../../src/tenants/tenant-index";
import type { TenantRegistry } from "../../src/tenants/tenant-registry";
import { insertAgent } from "../../src/agents/store";
import { auditEntry, newAuditId } from "../../src/audit/entry";
import { AUDIT_RETENTION_MS, sameJson } from "../../src/audit/entry";
import { sweepAuditLog } from "../../src/audit/store";
import type { AuditContext, AuditEntry } from "../../src/audit/types";
import { agentStoreStub, memoryStoreStub, schedulerStub, tenantIndexStub, tenantRegistryStub } from "../../src/objects";
import { SCHEDULER_MIGRATIONS } from "../../src/schedules/migrations";
import type { Schedule } from "../../src/schedules/types";
import type { Page } from "../../src/session-config/types";
import { latestVersion, migrate, schemaVersion } from "../../src/storage/migrations";
import { TENANT_INDEX_MIGRATIONS } from "../../src/tenants/migrations";
import { TENANT_REGISTRY_MIGRATIONS } from "../../src/tenants/registry-migrations";
import { SESSION_MIGRATIONS } from "../../src/sessions/object/store/migrations";
import { MEMORY_STORE_MIGRATIONS } from "../../src/memory/migrations";
import { newTestSession, unwrap, toolCalls } from "../support/agent-session";
import {
  migrateIndexTo,
  migrateMemoryStoreTo,
  migrateSessionTo,
  userTables,
  writeLegacyIndex,
  writeMemoryV1,
  writeSchedulerV1,
  writeWaitingAgentV6,
} from "../support/legacy-storage";
import { freshTenant } from "../support/tokens";

/** The versions each object's storage was at before the audit log (renumbered at a merge, here only). */
const INDEX_BEFORE_AUDIT = 9;
const REGISTRY_BEFORE_AUDIT = 2;
const AGENT_STORE_BEFORE_AUDIT = 1;
const SCHEDULER_BEFORE_AUDIT = 2;
const MEMORY_BEFORE_AUDIT = 5;
const SESSION_BEFORE_AUDIT = 11;

const BY: AuditContext = {
  actor: { sub: "admin-1", via: "jwt", key_id: null },
  request_id: "req-1",
  client_request_id: null,
  client_ip: "203.0.113.9",
};

async function tenantLog(tenantId: string): Promise<AuditEntry[]> {
  const page = (await tenantIndexStub(env, tenantId).listAuditLog(tenantId, { limit: 200, cursor: null })) as unknown as Page<AuditEntry>;
  return page.data.reverse();
}

describe("audit storage written by the version before the audit log", () => {
  it("TenantIndex: keeps its rows, gets the log and the outbox, and records from then on", async () => {
    const tenantId = freshTenant("mig-index");
    await runInDurableObject(tenantIndexStub(env, tenantId), async (_instance, state) => {
      migrateIndexTo(state.storage, INDEX_BEFORE_AUDIT);
      writeLegacyIndex(state.storage, tenantId, { statements: [] });
      expect(userTables(state.storage)).not.toContain("audit_log");
    });
    await abortAllDurableObjects();
    const index = tenantIndexStub(env, tenantId);
    expect(await index.getSessionSummary(tenantId, "ses_legacy")).not.toBeNull();
    await index.setLimitOverrides(tenantId, { max_steps_per_run: 3 }, BY);
    expect((await tenantLog(tenantId)).map((entry) => entry.action)).toEqual(["tenant.limits_updated"]);
    await runInDurableObject(index, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(TENANT_INDEX_MIGRATIONS));
      expect(userTables(state.storage)).toEqual(expect.arrayContaining(["audit_log", "audit_outbox"]));
    });
  });

  it("TenantRegistry: keeps its tenants and gets the platform's log", async () => {
    // The registry is one object every test shares: its previous layout is rebuilt on a scratch one.
    const name = `scratch-${crypto.randomUUID()}`;
    let scratch = env.TENANT_REGISTRY.get(env.TENANT_REGISTRY.idFromName(name));
    await runInDurableObject(scratch, async (_instance, state) => {
      state.storage.sql.exec("DROP TABLE IF EXISTS audit_log");
      state.storage.kv.put("schema_version", REGISTRY_BEFORE_AUDIT);
      state.storage.sql.exec("INSERT OR IGNORE INTO tenants (tenant_id, created_at) VALUES ('acme', 1)");
    });
    await abortAllDurableObjects();
    scratch = env.TENANT_REGISTRY.get(env.TENANT_REGISTRY.idFromName(name));
    expect((await scratch.list({ limit: 10, cursor: null })).data.map((t) => t.tenant_id)).toEqual(["acme"]);
    const entry = auditEntry("acme", BY, { action: "tenant.suspended", target: { type: "tenant", id: "acme" } }, newAuditId(), Date.now());
    await scratch.recordAudit([entry]);
    expect(((await scratch.listAuditLog({ limit: 10, cursor: null })) as unknown as Page<AuditEntry>).data).toEqual([entry]);
    await runInDurableObject(scratch, async (_instance, state) =>
      expect(schemaVersion(state.storage)).toBe(latestVersion(TENANT_REGISTRY_MIGRATIONS)),
    );
  });

  it("AgentStore: keeps its agents and records their changes from then on", async () => {
    const tenantId = freshTenant("mig-agents");
    await runInDurableObject(agentStoreStub(env, tenantId), async (_instance, state) => {
      migrate(state.storage, AGENT_STORE_MIGRATIONS.slice(0, AGENT_STORE_BEFORE_AUDIT));
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
    });
    await abortAllDurableObjects();
    const store = agentStoreStub(env, tenantId);
    expect((await store.archive(tenantId, "agt_AAAAAAAAAAAAAAAAAAAAAAAA", Date.now(), BY)).ok).toBe(true);
    expect((await tenantLog(tenantId)).map((entry) => [entry.action, entry.target.id])).toEqual([
      ["agent.archived", "agt_AAAAAAAAAAAAAAAAAAAAAAAA"],
    ]);
    await runInDurableObject(store, async (_instance, state) =>
      expect(schemaVersion(state.storage)).toBe(latestVersion(AGENT_STORE_MIGRATIONS)),
    );
  });

  it("Scheduler: keeps its schedules and records their deletion from then on", async () => {
    const tenantId = freshTenant("mig-sched");
    await runInDurableObject(schedulerStub(env, tenantId), async (_instance, state) => {
      await writeSchedulerV1(state.storage, tenantId, [
        { id: "sch_old", created_by: "admin", scopes: ["tenant:admin"], via: "jwt", key_id: null, cron: "0 * * * *" },
      ]);
      migrate(state.storage, SCHEDULER_MIGRATIONS.slice(0, SCHEDULER_BEFORE_AUDIT));
    });
    await abortAllDurableObjects();
    const scheduler = schedulerStub(env, tenantId);
    const page = (await scheduler.list(tenantId, { created_by: null, limit: 10, cursor: null })) as unknown as Page<Schedule>;
    expect(page.data.map((s) => s.id)).toEqual(["sch_old"]);
    expect((await scheduler.remove(tenantId, "sch_old", BY)).ok).toBe(true);
    expect((await tenantLog(tenantId)).map((entry) => [entry.action, entry.target.id])).toEqual([["schedule.deleted", "sch_old"]]);
    await runInDurableObject(scheduler, async (_instance, state) =>
      expect(schemaVersion(state.storage)).toBe(latestVersion(SCHEDULER_MIGRATIONS)),
    );
  });

  it("MemoryStore: keeps its items and records a person's deletion from then on", async () => {
    const tenantId = freshTenant("mig-memory");
    await runInDurableObject(memoryStoreStub(env, tenantId), async (_instance, state) => {
      writeMemoryV1(state.storage, tenantId, [{ namespace: "notes", key: "a", value: { note: "kept" }, body: "a note kept" }]);
      migrateMemoryStoreTo(state.storage, MEMORY_BEFORE_AUDIT);
    });
    await abortAllDurableObjects();
    const memory = memoryStoreStub(env, tenantId);
    expect((await memory.remove(tenantId, ["notes"], "a", Date.now(), BY)).ok).toBe(true);
    expect((await tenantLog(tenantId)).map((entry) => [entry.action, entry.target.id])).toEqual([["memory.deleted", "notes/a"]]);
    await runInDurableObject(memory, async (_instance, state) =>
      expect(schemaVersion(state.storage)).toBe(latestVersion(MEMORY_STORE_MIGRATIONS)),
    );
  });

  it("session object: its waiting call, approved after the migration, is recorded", async () => {
    const t = newTestSession();
    await runInDurableObject(t.stub, async (_instance, state) => {
      writeWaitingAgentV6(state.storage, t);
      migrateSessionTo(state.storage, SESSION_BEFORE_AUDIT);
    });
    await abortAllDurableObjects();
    await t.model.script({ reply: { content: [{ type: "text", text: "noon" }] } });
    unwrap(await t.stub.approve("toolu_legacy", "carol", null, BY));
    expect((await toolCalls(t))[0]).toMatchObject({ decision: "approved" });
    expect((await tenantLog(t.tenantId)).map((entry) => [entry.action, entry.target.id])).toEqual([["tool_call.approved", "toolu_legacy"]]);
    await runInDurableObject(t.stub, async (_instance, state) =>
      expect(schemaVersion(state.storage)).toBe(latestVersion(SESSION_MIGRATIONS)),
    );
  });
});

describe("no change without its entry", () => {
  it("TenantIndex: a change whose entry cannot be written is not made", async () => {
    const tenantId = freshTenant("tx-index");
    const index = tenantIndexStub(env, tenantId);
    await index.setLimitOverrides(tenantId, { max_steps_per_run: 3 }, BY);
    await runInDurableObject(index, async (instance: TenantIndex, state) => {
      state.storage.sql.exec("DROP TABLE audit_log");
      await expect(instance.setLimitOverrides(tenantId, { max_steps_per_run: 9 }, BY)).rejects.toThrow(/audit_log/);
      await expect(
        instance.putSettings(tenantId, { webhook_origins: ["https://x.example.com"], session_retention_days: null, traces: null }, BY),
      ).rejects.toThrow(/audit_log/);
    });
    expect(await index.getLimitOverrides(tenantId)).toEqual({ max_steps_per_run: 3 });
    expect(await index.getSettings(tenantId)).toEqual({ webhook_origins: null, session_retention_days: null, traces: null });
  });

  it("AgentStore: an agent whose entry cannot be kept in the outbox is not created", async () => {
    const tenantId = freshTenant("tx-agents");
    const store = agentStoreStub(env, tenantId);
    expect((await store.create(tenantId, { definition: { name: "first" } as never, createdBy: "u", now: Date.now() }, BY)).ok).toBe(true);
    await runInDurableObject(store, async (instance: AgentStore, state) => {
      state.storage.sql.exec("DROP TABLE audit_outbox");
      await expect(
        instance.create(tenantId, { definition: { name: "second" } as never, createdBy: "u", now: Date.now() }, BY),
      ).rejects.toThrow(/audit_outbox/);
      // Back, for the alarm the first change set: the step that made it, again.
      AGENT_STORE_MIGRATIONS.find((step) => step.version === AGENT_STORE_BEFORE_AUDIT + 1)!.up(state.storage);
    });
    const names = (
      (await store.list(tenantId, { limit: 10, cursor: null, name: null, includeArchived: true })) as unknown as Page<{ name: string }>
    ).data.map((agent) => agent.name);
    expect(names).toEqual(["first"]);
  });

  it("an entry committed with its change but never handed over (a crash in between) reaches the log from the alarm, once", async () => {
    const tenantId = freshTenant("crash");
    const store = agentStoreStub(env, tenantId);
    expect((await store.create(tenantId, { definition: { name: "first" } as never, createdBy: "u", now: Date.now() }, BY)).ok).toBe(true);
    // What a crash right after the commit leaves: the row owed in the outbox, and the alarm set with it.
    const owed = auditEntry(
      tenantId,
      BY,
      { action: "agent.archived", target: { type: "agent", id: "agt_owed" } },
      newAuditId(),
      Date.now(),
    );
    await runInDurableObject(store, async (_instance, state) => {
      state.storage.sql.exec(
        "INSERT INTO audit_outbox (id, created_at, entry) VALUES (?, ?, ?)",
        owed.id,
        Date.now(),
        JSON.stringify(owed),
      );
      await state.storage.setAlarm(Date.now() + 1);
    });
    await abortAllDurableObjects();
    expect((await tenantLog(tenantId)).map((entry) => entry.id)).not.toContain(owed.id);
    expect(await runDurableObjectAlarm(agentStoreStub(env, tenantId))).toBe(true);
    const log = await tenantLog(tenantId);
    expect(log.filter((entry) => entry.id === owed.id)).toEqual([owed]);
    await runInDurableObject(agentStoreStub(env, tenantId), async (_instance, state) => {
      expect(state.storage.sql.exec("SELECT COUNT(*) AS n FROM audit_outbox").one().n).toBe(0);
    });
    // A hand-over repeated after a lost answer adds nothing.
    await tenantIndexStub(env, tenantId).recordAudit(tenantId, [owed, owed]);
    expect((await tenantLog(tenantId)).filter((entry) => entry.id === owed.id)).toHaveLength(1);
  });
});

describe("recordAudit", () => {
  it("records a change made elsewhere (a tenant's deletion) in the tenant's log and, a platform action, in the platform's", async () => {
    const tenantId = freshTenant("deleted");
    const [entry] = (await tenantIndexStub(env, tenantId).recordAudit(tenantId, [
      { change: { action: "tenant.deleted", target: { type: "tenant", id: tenantId } }, by: BY },
    ])) as unknown as AuditEntry[];
    expect(entry).toMatchObject({
      tenant_id: tenantId,
      action: "tenant.deleted",
      actor: BY.actor,
      request_id: "req-1",
      client_ip: "203.0.113.9",
      details: {},
    });
    expect(await tenantLog(tenantId)).toEqual([entry]);
    const platform = (await tenantRegistryStub(env).listAuditLog({
      limit: 10,
      cursor: null,
      tenant_id: tenantId,
    })) as unknown as Page<AuditEntry>;
    expect(platform.data).toEqual([entry]);
  });

  it("refuses an unknown action, another tenant's entry, and a tenant's own action in the platform's log", async () => {
    const tenantId = freshTenant("refuse");
    const foreign = auditEntry(
      "someone-else",
      BY,
      { action: "settings.updated", target: { type: "tenant", id: "x" } },
      newAuditId(),
      Date.now(),
    );
    await runInDurableObject(tenantIndexStub(env, tenantId), async (index: TenantIndex) => {
      await expect(
        index.recordAudit(tenantId, [{ change: { action: "tenant.eaten" as never, target: { type: "tenant", id: tenantId } } }]),
      ).rejects.toThrow(/unknown action/);
      await expect(index.recordAudit(tenantId, [foreign])).rejects.toThrow(/another tenant/);
    });
    await runInDurableObject(tenantRegistryStub(env), async (registry: TenantRegistry) => {
      await expect(registry.recordAudit([foreign])).rejects.toThrow(/platform action/);
    });
    expect(await tenantLog(tenantId)).toEqual([]);
  });
});

describe("retention", () => {
  it("sweeps entries older than 400 days, and no others", async () => {
    const tenantId = freshTenant("sweep");
    const index = tenantIndexStub(env, tenantId);
    await index.setAllowedModels(tenantId, ["a"], BY);
    await runInDurableObject(index, async (_instance, state) => {
      const now = Date.now();
      const old = auditEntry(
        tenantId,
        BY,
        { action: "settings.updated", target: { type: "tenant", id: tenantId } },
        newAuditId(),
        now - AUDIT_RETENTION_MS - 1,
      );
      state.storage.sql.exec(
        "INSERT INTO audit_log (id, at, tenant_id, action, actor_sub, entry) VALUES (?, ?, ?, ?, ?, ?)",
        old.id,
        Date.parse(old.at),
        tenantId,
        old.action,
        "admin-1",
        JSON.stringify(old),
      );
      expect(sweepAuditLog(state.storage.sql, now, 100)).toBe(1);
      expect(sweepAuditLog(state.storage.sql, now, 100)).toBe(0);
    });
    expect((await tenantLog(tenantId)).map((entry) => entry.action)).toEqual(["tenant.models_updated"]);
  });
});

describe("sameJson", () => {
  it("tells a write of what was there from a change", () => {
    expect(sameJson({ a: 1 }, { a: 1 })).toBe(true);
    expect(sameJson(null, undefined)).toBe(true);
    expect(sameJson({ a: 1 }, { a: 2 })).toBe(false);
  });
});
