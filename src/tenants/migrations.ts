/**
 * Storage migrations of the tenant index, oldest first (the registry's: registry-migrations.ts) (runner: src/storage/migrations.ts;
 * layout: storage.md). Append a step for every change; never edit one. Times in SQL are integer
 * milliseconds since the epoch, so ordering and expiry are numeric comparisons.
 */
import { execAll, type Migration } from "../storage/migrations";

export const TENANT_INDEX_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "sessions, removals, daily usage, run reservations, API keys, idempotency records",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS sessions (
          id TEXT PRIMARY KEY,
          created_by TEXT NOT NULL,
          status TEXT NOT NULL,
          stop_reason TEXT,
          input_tokens INTEGER NOT NULL,
          output_tokens INTEGER NOT NULL,
          steps INTEGER NOT NULL,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          revision INTEGER NOT NULL
        )`,
        `CREATE INDEX IF NOT EXISTS sessions_by_created ON sessions (created_at, id)`,
        `CREATE INDEX IF NOT EXISTS sessions_by_status ON sessions (status, created_at, id)`,
        `CREATE INDEX IF NOT EXISTS sessions_by_creator ON sessions (created_by, created_at, id)`,
        `CREATE TABLE IF NOT EXISTS removed_sessions (
          id TEXT PRIMARY KEY,
          removed_at INTEGER NOT NULL
        )`,
        `CREATE INDEX IF NOT EXISTS removed_sessions_by_time ON removed_sessions (removed_at)`,
        `CREATE TABLE IF NOT EXISTS usage_daily (
          day TEXT PRIMARY KEY,
          input_tokens INTEGER NOT NULL DEFAULT 0,
          output_tokens INTEGER NOT NULL DEFAULT 0,
          steps INTEGER NOT NULL DEFAULT 0,
          sessions_created INTEGER NOT NULL DEFAULT 0
        )`,
        `CREATE TABLE IF NOT EXISTS run_reservations (
          session_id TEXT PRIMARY KEY,
          expires_at INTEGER NOT NULL
        )`,
        `CREATE TABLE IF NOT EXISTS api_keys (
          key_id TEXT PRIMARY KEY,
          name TEXT NOT NULL,
          scopes TEXT NOT NULL,
          hash TEXT NOT NULL,
          created_by TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          expires_at INTEGER,
          revoked_at INTEGER,
          last_used_at INTEGER
        )`,
        `CREATE INDEX IF NOT EXISTS api_keys_by_created ON api_keys (created_at, key_id)`,
        `CREATE TABLE IF NOT EXISTS idempotency (
          scope TEXT NOT NULL,
          key TEXT NOT NULL,
          body_hash TEXT NOT NULL,
          status INTEGER,
          body TEXT,
          created_at INTEGER NOT NULL,
          PRIMARY KEY (scope, key)
        )`,
        `CREATE INDEX IF NOT EXISTS idempotency_by_created ON idempotency (created_at)`,
      ]),
  },
  {
    version: 2,
    description: "prompt-cache reads and writes counted per session and per day",
    up: (storage) =>
      execAll(storage.sql, [
        `ALTER TABLE sessions ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0`,
        `ALTER TABLE sessions ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0`,
        `ALTER TABLE usage_daily ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0`,
        `ALTER TABLE usage_daily ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0`,
      ]),
  },
  {
    version: 3,
    description: "run queue: sessions waiting for a run slot, in arrival order",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS run_queue (
          session_id TEXT PRIMARY KEY,
          queued_at INTEGER NOT NULL,
          granted_at INTEGER
        )`,
        `CREATE INDEX IF NOT EXISTS run_queue_by_time ON run_queue (queued_at, session_id)`,
      ]),
  },
  {
    version: 4,
    description: "event streams noted per session and API key, to close them on revocation or suspension",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS event_streams (
          session_id TEXT NOT NULL,
          key_id TEXT NOT NULL,
          expires_at INTEGER NOT NULL,
          PRIMARY KEY (session_id, key_id)
        )`,
        `CREATE INDEX IF NOT EXISTS event_streams_by_key ON event_streams (key_id, expires_at)`,
        `CREATE INDEX IF NOT EXISTS event_streams_by_expiry ON event_streams (expires_at)`,
      ]),
  },
  {
    version: 5,
    description: "status webhooks: the tenant's endpoints and the delivery log (every delivery owed or made)",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS webhook_endpoints (
          id TEXT PRIMARY KEY,
          url TEXT NOT NULL,
          event_types TEXT NOT NULL,
          description TEXT,
          created_by TEXT NOT NULL,
          created_at INTEGER NOT NULL
        )`,
        `CREATE INDEX IF NOT EXISTS webhook_endpoints_by_created ON webhook_endpoints (created_at, id)`,
        `CREATE TABLE IF NOT EXISTS webhook_deliveries (
          id TEXT PRIMARY KEY,
          target TEXT NOT NULL,
          endpoint_id TEXT,
          event_id TEXT NOT NULL,
          event_type TEXT NOT NULL,
          session_id TEXT NOT NULL,
          url TEXT NOT NULL,
          body TEXT NOT NULL,
          status TEXT NOT NULL,
          attempts INTEGER NOT NULL DEFAULT 0,
          next_attempt_at INTEGER,
          last_attempt_at INTEGER,
          response_status INTEGER,
          error TEXT,
          created_at INTEGER NOT NULL,
          settled_at INTEGER,
          redelivery_of TEXT
        )`,
        // One original delivery per event and receiver: a repeated hand-off adds nothing.
        `CREATE UNIQUE INDEX IF NOT EXISTS webhook_deliveries_once ON webhook_deliveries (event_id, target) WHERE redelivery_of IS NULL`,
        `CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`,
        `CREATE INDEX IF NOT EXISTS webhook_deliveries_by_target ON webhook_deliveries (target, created_at, id)`,
        `CREATE INDEX IF NOT EXISTS webhook_deliveries_pending_by_target ON webhook_deliveries (target) WHERE status = 'pending'`,
        `CREATE INDEX IF NOT EXISTS webhook_deliveries_by_created ON webhook_deliveries (created_at)`,
      ]),
  },
  {
    version: 6,
    description: "open event streams, one row per stream, so the tenant's streams can be counted (event_streams is no longer written)",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS open_streams (
          stream_id TEXT PRIMARY KEY,
          session_id TEXT NOT NULL,
          key_id TEXT NOT NULL,
          expires_at INTEGER NOT NULL
        )`,
        `CREATE INDEX IF NOT EXISTS open_streams_by_key ON open_streams (key_id, expires_at)`,
        `CREATE INDEX IF NOT EXISTS open_streams_by_expiry ON open_streams (expires_at)`,
        `CREATE INDEX IF NOT EXISTS open_streams_by_session ON open_streams (session_id)`,
        // A row of event_streams stood for every stream of one session and key. It keeps its
        // deadline under an id no stream has, so a revocation still finds its session, and the
        // first recount of live streams drops it. event_streams stays, for code rolled back to it.
        `INSERT OR IGNORE INTO open_streams (stream_id, session_id, key_id, expires_at)
          SELECT 'v4:' || session_id || ':' || key_id, session_id, key_id, expires_at FROM event_streams`,
      ]),
  },
  {
    version: 7,
    description: "the agent version each session was created from, for listing a tenant's sessions by agent",
    up: (storage) =>
      execAll(storage.sql, [
        // Sessions from before agents existed ran none: null.
        `ALTER TABLE sessions ADD COLUMN agent_id TEXT`,
        `ALTER TABLE sessions ADD COLUMN agent_version INTEGER`,
        `CREATE INDEX IF NOT EXISTS sessions_by_agent ON sessions (agent_id, created_at, id)`,
      ]),
  },
  {
    version: 8,
    description: "the parent of each child session an agent tool call started, for listing a session's children",
    up: (storage) =>
      execAll(storage.sql, [
        // Sessions from before sub-agents were all started by a caller: null.
        `ALTER TABLE sessions ADD COLUMN parent_session_id TEXT`,
        `CREATE INDEX IF NOT EXISTS sessions_by_parent ON sessions (parent_session_id, created_at, id)`,
      ]),
  },
  {
    version: 9,
    description: "sessions by their last change, for the retention sweep's oldest-first walk",
    up: (storage) => execAll(storage.sql, [`CREATE INDEX IF NOT EXISTS sessions_by_update ON sessions (updated_at, id)`]),
  },
  {
    version: 10,
    description: "the tenant's audit log, and the outbox of platform actions owed to the platform's log",
    // Storage from before kept no entries: the log starts empty.
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
        `CREATE TABLE IF NOT EXISTS audit_outbox (
          id TEXT PRIMARY KEY,
          created_at INTEGER NOT NULL,
          entry TEXT NOT NULL
        )`,
      ]),
  },
  {
    version: 11,
    description:
      "each session's title (its first input, cut) and its metadata entries, for lists that say what a session is and find it by a label",
    up: (storage) =>
      execAll(storage.sql, [
        // Rows from before stay null until their session reports again (sessions-store.ts).
        `ALTER TABLE sessions ADD COLUMN title TEXT`,
        `CREATE TABLE IF NOT EXISTS session_metadata (
          session_id TEXT NOT NULL,
          key TEXT NOT NULL,
          value TEXT NOT NULL,
          PRIMARY KEY (session_id, key)
        )`,
        `CREATE INDEX IF NOT EXISTS session_metadata_by_entry ON session_metadata (key, value, session_id)`,
      ]),
  },
  {
    version: 12,
    description: "usage by day, model, API key, creator and agent; each session's model, key and runs; an API key's daily token budget",
    up: (storage) =>
      execAll(storage.sql, [
        // Sessions from before: model and key unknown (''), no run counted yet.
        `ALTER TABLE sessions ADD COLUMN model TEXT NOT NULL DEFAULT ''`,
        `ALTER TABLE sessions ADD COLUMN api_key_id TEXT NOT NULL DEFAULT ''`,
        `ALTER TABLE sessions ADD COLUMN runs INTEGER NOT NULL DEFAULT 0`,
        `ALTER TABLE api_keys ADD COLUMN max_tokens_per_day INTEGER`,
        `CREATE TABLE IF NOT EXISTS usage_rollup (
          day TEXT NOT NULL,
          model TEXT NOT NULL,
          api_key_id TEXT NOT NULL,
          created_by TEXT NOT NULL,
          agent_id TEXT NOT NULL,
          runs INTEGER NOT NULL DEFAULT 0,
          steps INTEGER NOT NULL DEFAULT 0,
          input_tokens INTEGER NOT NULL DEFAULT 0,
          output_tokens INTEGER NOT NULL DEFAULT 0,
          cache_read_tokens INTEGER NOT NULL DEFAULT 0,
          cache_write_tokens INTEGER NOT NULL DEFAULT 0,
          PRIMARY KEY (day, model, api_key_id, created_by, agent_id)
        )`,
        `CREATE INDEX IF NOT EXISTS usage_rollup_by_creator ON usage_rollup (created_by, day)`,
        `CREATE INDEX IF NOT EXISTS usage_rollup_by_key ON usage_rollup (api_key_id, day)`,
        // The days counted before keep their totals, attributed to nothing ('' in every dimension).
        `INSERT OR IGNORE INTO usage_rollup (day, model, api_key_id, created_by, agent_id, steps, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens)
          SELECT day, '', '', '', '', steps, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens FROM usage_daily
          WHERE steps + input_tokens + output_tokens + cache_read_tokens + cache_write_tokens > 0`,
      ]),
  },
  {
    version: 13,
    description: "each end user's token revocation cut-off",
    // Storage from before revoked nothing: every end user's tokens stand.
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS end_user_revocations (
          subject TEXT PRIMARY KEY,
          revoked_before INTEGER NOT NULL
        )`,
      ]),
  },
  {
    version: 14,
    description: "each audit entry's client request id, kept apart from the platform's own request id",
    // Entries from before kept one request id, the caller's when it sent one: which, none can say,
    // so it stays the entry's `request_id` and the client's is unknown (null).
    up: (storage) =>
      execAll(storage.sql, [
        `UPDATE audit_log SET entry = json_set(entry, '$.client_request_id', NULL) WHERE json_type(entry, '$.client_request_id') IS NULL`,
      ]),
  },
  {
    version: 15,
    description: "the daily token budgets each run going holds reserved",
    // Storage from before reserved nothing: its runs going count by what they reported, as they did.
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS budget_reservations (
          session_id TEXT PRIMARY KEY,
          created_by TEXT NOT NULL,
          api_key_id TEXT NOT NULL,
          tokens INTEGER NOT NULL,
          base_tokens INTEGER NOT NULL,
          day TEXT NOT NULL
        )`,
      ]),
  },
  {
    version: 16,
    description: "the sessions waiting in waiting_budget, by the budget they wait on and whose it is",
    // Storage from before had no session waiting on a budget (runs past one ended): the table starts empty.
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS budget_waits (
          session_id TEXT PRIMARY KEY,
          budget TEXT NOT NULL,
          owner TEXT NOT NULL
        )`,
        `CREATE INDEX IF NOT EXISTS budget_waits_by_budget ON budget_waits (budget, owner)`,
      ]),
  },
  {
    version: 17,
    description: "the run slots leased to each shard of the tenant's sessions",
    // Storage from before had no shards: the ledger starts empty, every slot the index's own.
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS slot_leases (
          shard TEXT PRIMARY KEY,
          leased INTEGER NOT NULL,
          seq INTEGER NOT NULL
        )`,
      ]),
  },
  {
    version: 18,
    description: "the spending each shard of the tenant's sessions sent for its daily budgets, and whose reservation each is",
    // Storage from before had no daily budget on a sharded tenant: no spending to hold, every reservation the index's own.
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS shard_spend (
          day TEXT NOT NULL,
          shard TEXT NOT NULL,
          model TEXT NOT NULL,
          api_key_id TEXT NOT NULL,
          created_by TEXT NOT NULL,
          input_tokens INTEGER NOT NULL,
          output_tokens INTEGER NOT NULL,
          cache_read_tokens INTEGER NOT NULL,
          cache_write_tokens INTEGER NOT NULL,
          PRIMARY KEY (day, shard, model, api_key_id, created_by)
        )`,
        `CREATE INDEX IF NOT EXISTS shard_spend_by_creator ON shard_spend (day, created_by)`,
        `CREATE INDEX IF NOT EXISTS shard_spend_by_key ON shard_spend (day, api_key_id)`,
        `ALTER TABLE budget_reservations ADD COLUMN shard TEXT NOT NULL DEFAULT ''`,
      ]),
  },
];
