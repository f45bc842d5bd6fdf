/**
 * Storage migrations of the platform's tenant registry, oldest first (runner:
 * src/storage/migrations.ts; layout: storage.md). Append a step for every change; never edit one.
 */
import { execAll, type Migration } from "../storage/migrations";

export const TENANT_REGISTRY_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "tenants",
    up: (storage) => execAll(storage.sql, [`CREATE TABLE IF NOT EXISTS tenants (tenant_id TEXT PRIMARY KEY, created_at INTEGER NOT NULL)`]),
  },
  {
    version: 2,
    description: "tenant deletions: when each began and ended, and a deleted tenant is never registered again",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS tenant_deletions (
          tenant_id TEXT PRIMARY KEY,
          started_at INTEGER NOT NULL,
          finished_at INTEGER
        )`,
      ]),
  },
  {
    version: 3,
    description: "the platform's audit log: every tenant's platform actions",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS audit_log (
          id TEXT PRIMARY KEY,
          at INTEGER NOT NULL,
          tenant_id TEXT NOT NULL,
          action TEXT NOT NULL,
          actor_sub TEXT,
          entry TEXT NOT NULL
        )`,
        `CREATE INDEX IF NOT EXISTS audit_log_by_time ON audit_log (at, id)`,
        `CREATE INDEX IF NOT EXISTS audit_log_by_action ON audit_log (action, at, id)`,
        `CREATE INDEX IF NOT EXISTS audit_log_by_actor ON audit_log (actor_sub, at, id)`,
        `CREATE INDEX IF NOT EXISTS audit_log_by_tenant ON audit_log (tenant_id, at, id)`,
      ]),
  },
  {
    version: 4,
    description: "each audit entry's client request id, kept apart from the platform's own request id",
    // As the tenant index's version 14: the entries from before get a null client request id.
    up: (storage) =>
      execAll(storage.sql, [
        `UPDATE audit_log SET entry = json_set(entry, '$.client_request_id', NULL) WHERE json_type(entry, '$.client_request_id') IS NULL`,
      ]),
  },
  {
    version: 5,
    description: "each tenant's jurisdiction, set by a platform admin before the tenant holds data",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS tenant_placements (
          tenant_id TEXT PRIMARY KEY,
          jurisdiction TEXT NOT NULL,
          set_at INTEGER NOT NULL
        )`,
      ]),
  },
];
