/**
 * The agent store's datasets and eval runs (src/evals/; layout in src/agents/storage.md), a step
 * of `AGENT_STORE_MIGRATIONS`. Frozen like every migration: never edit, append a new step.
 */
import { execAll, type Migration } from "../../storage/migrations";

export const DATASETS_AND_EVALS_MIGRATION: Migration = {
  version: 3,
  description: "datasets with their items, eval runs with their items",
  up: (storage) =>
    execAll(storage.sql, [
      `CREATE TABLE IF NOT EXISTS datasets (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        version INTEGER NOT NULL,
        item_count INTEGER NOT NULL,
        created_by TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      )`,
      `CREATE INDEX IF NOT EXISTS datasets_by_created ON datasets (created_at, id)`,
      `CREATE TABLE IF NOT EXISTS dataset_items (
        dataset_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        item TEXT NOT NULL,
        PRIMARY KEY (dataset_id, position)
      )`,
      `CREATE TABLE IF NOT EXISTS evals (
        id TEXT PRIMARY KEY,
        config TEXT NOT NULL,
        status TEXT NOT NULL,
        error TEXT,
        created_by TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        finished_at INTEGER
      )`,
      `CREATE INDEX IF NOT EXISTS evals_by_created ON evals (created_at, id)`,
      `CREATE INDEX IF NOT EXISTS evals_by_status ON evals (status)`,
      `CREATE TABLE IF NOT EXISTS eval_items (
        eval_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        item TEXT NOT NULL,
        session_id TEXT,
        status TEXT NOT NULL,
        session_status TEXT,
        judges TEXT,
        outcome TEXT,
        scores TEXT NOT NULL,
        cost_usd REAL,
        judge_cost_usd REAL,
        steps INTEGER,
        error TEXT,
        started_at INTEGER,
        finished_at INTEGER,
        PRIMARY KEY (eval_id, position)
      )`,
      `CREATE INDEX IF NOT EXISTS eval_items_by_status ON eval_items (eval_id, status, position)`,
    ]),
};
