/**
 * The storage of sharding: the tenant index's lease ledger (its version 17) against storage version
 * 16 wrote, and a shard's tables, which must keep a session exactly as the index's own tables keep it.
 */
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub, tenantShardStub } from "../../src/objects";
import { latestVersion, migrate, schemaVersion } from "../../src/storage/migrations";
import { TENANT_INDEX_MIGRATIONS } from "../../src/tenants/migrations";
import { TENANT_SHARD_MIGRATIONS } from "../../src/tenants/shards/migrations";
import { heldReservations } from "../../src/tenants/budget-reservations";
import { migrateIndexTo, userTables, writeLegacyIndex } from "../support/legacy-storage";
import { report } from "../tenants/helpers";
import { freshTenant } from "../support/tokens";

/** Each table's columns (name, type, not-null, default, key position) and its indexes' columns. */
function shape(storage: DurableObjectStorage, tables: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(
    tables.map((table) => [
      table,
      {
        columns: storage.sql
          .exec<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>(`PRAGMA table_info(${table})`)
          .toArray()
          .map(({ name, type, notnull, dflt_value, pk }) => ({ name, type, notnull, dflt_value, pk }))
          .sort((a, b) => a.name.localeCompare(b.name)),
        indexes: storage.sql
          .exec<{ name: string }>(
            `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name NOT LIKE 'sqlite_%'`,
            table,
          )
          .toArray()
          .map((row) => ({
            name: row.name,
            columns: storage.sql
              .exec<{ name: string }>(`PRAGMA index_info(${row.name})`)
              .toArray()
              .map((column) => column.name),
          }))
          .sort((a, b) => a.name.localeCompare(b.name)),
      },
    ]),
  );
}

const SHARD_TABLES = [
  "sessions",
  "session_metadata",
  "removed_sessions",
  "usage_daily",
  "usage_rollup",
  "run_reservations",
  "run_queue",
  "budget_reservations",
  "budget_waits",
] as const;

describe("TenantIndex storage written by version 16 (before shards)", () => {
  it("gets an empty lease ledger on wake, keeps its sessions, and still gives every slot to its own sessions", async () => {
    const tenantId = freshTenant();
    await runInDurableObject(tenantIndexStub(env, tenantId), async (_instance, state) => {
      migrateIndexTo(state.storage, 16);
      writeLegacyIndex(state.storage, tenantId, { statements: [] });
      expect(userTables(state.storage)).not.toContain("slot_leases");
    });
    await abortAllDurableObjects();
    const index = tenantIndexStub(env, tenantId);
    expect((await index.getSessionSummary(tenantId, "ses_legacy"))?.status).toBe("done");
    await index.reportSession(tenantId, report("ses_running", { status: "running" }));
    // One slot of two is taken by the running session: the second is the index's to give, none is lent.
    expect(await index.acquireRun(tenantId, "ses_next", 2, Date.now())).toEqual({ ok: true });
    expect((await index.acquireRun(tenantId, "ses_third", 2, Date.now())).ok).toBe(false);
    expect((await index.getConfig(tenantId)).shards).toBe(1);
    await runInDurableObject(index, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(TENANT_INDEX_MIGRATIONS));
      expect(state.storage.sql.exec(`SELECT * FROM slot_leases`).toArray()).toEqual([]);
    });
  });
});

describe("TenantIndex storage written by version 17 (before shards sent their spending)", () => {
  it("keeps a run's reservation as the index's own, and counts it against the daily budget", async () => {
    const tenantId = freshTenant();
    const day = new Date().toISOString().slice(0, 10);
    await runInDurableObject(tenantIndexStub(env, tenantId), async (_instance, state) => {
      migrateIndexTo(state.storage, 17);
      writeLegacyIndex(state.storage, tenantId, { statements: [] });
      state.storage.sql.exec(
        `INSERT INTO budget_reservations (session_id, created_by, api_key_id, tokens, base_tokens, day) VALUES ('ses_going', 'user-1', '', 60, 0, ?)`,
        day,
      );
      expect(userTables(state.storage)).not.toContain("shard_spend");
    });
    await abortAllDurableObjects();
    const index = tenantIndexStub(env, tenantId);
    // 60 held of 100: a run that sees 60 held and nothing spent may start; with 50 of budget left it may not.
    const run = (sessionId: string, maxTokensPerDay: number) => ({
      sessionId,
      maxConcurrent: 5,
      maxTokensPerDay,
      reserveTokens: 10,
      now: Date.now(),
    });
    expect(await index.admitRun(tenantId, run("ses_next", 100))).toEqual({ ok: true });
    expect(await index.admitRun(tenantId, run("ses_third", 70))).toMatchObject({ ok: false, code: "budget_used", held: true });
    await runInDurableObject(index, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(TENANT_INDEX_MIGRATIONS));
      expect(state.storage.sql.exec(`SELECT * FROM shard_spend`).toArray()).toEqual([]);
      expect(
        state.storage.sql
          .exec<{ session_id: string; shard: string }>(`SELECT session_id, shard FROM budget_reservations ORDER BY session_id`)
          .toArray(),
      ).toEqual([
        { session_id: "ses_going", shard: "" },
        { session_id: "ses_next", shard: "" },
      ]);
    });
  });
});

describe("a tenant shard's tables", () => {
  it("have the columns, defaults and indexes the tenant index's session tables have", async () => {
    const tenantId = freshTenant();
    const indexShape = await runInDurableObject(tenantIndexStub(env, tenantId), async (_instance, state) => {
      migrate(state.storage, TENANT_INDEX_MIGRATIONS);
      return shape(state.storage, SHARD_TABLES);
    });
    const shardShape = await runInDurableObject(tenantShardStub(env, tenantId, { generation: 1, k: 0 }), async (_instance, state) => {
      migrate(state.storage, TENANT_SHARD_MIGRATIONS);
      return shape(state.storage, SHARD_TABLES);
    });
    expect(shardShape).toEqual(indexShape);
  });
});

describe("TenantShard storage written by version 1 (before budgets on shards)", () => {
  it("keeps its reservations, and lists what each still holds to the index", async () => {
    const tenantId = freshTenant();
    const ref = { generation: 1, shards: 2, k: 1 };
    const day = new Date().toISOString().slice(0, 10);
    await runInDurableObject(tenantShardStub(env, tenantId, ref), async (_instance, state) => {
      migrate(state.storage, TENANT_SHARD_MIGRATIONS.slice(0, 1));
      state.storage.kv.put("bound", { tenantId, shard: ref });
      state.storage.sql.exec(
        `INSERT INTO budget_reservations (session_id, created_by, api_key_id, tokens, base_tokens, day) VALUES ('ses_going', 'user-1', '', 60, 0, ?)`,
        day,
      );
    });
    await abortAllDurableObjects();
    await runInDurableObject(tenantShardStub(env, tenantId, ref), async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(TENANT_SHARD_MIGRATIONS));
      expect(heldReservations(state.storage.sql, Date.now())).toEqual([{ session_id: "ses_going", tokens: 60 }]);
    });
  });
});
