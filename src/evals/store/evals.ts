/** The `evals` and `eval_items` tables (src/agents/storage.md): every read and write of them. */
import { decodeTimeIdCursor, encodeTimeIdCursor } from "../../shared/cursor";
import { toIso } from "../../shared/validate";
import type { DatasetItem, EvalConfig, EvalItem, EvalItemStatus, EvalStatus, ItemScore } from "../types";

export type { EvalConfig } from "../types";

export interface EvalRow extends Record<string, SqlStorageValue> {
  id: string;
  config: string;
  status: EvalStatus;
  error: string | null;
  created_by: string;
  created_at: number;
  finished_at: number | null;
}

/** What an answer shows of an item: every column but the dataset item's copy and the judges' working state. */
export interface ItemView extends Record<string, SqlStorageValue> {
  eval_id: string;
  position: number;
  session_id: string | null;
  status: EvalItemStatus;
  session_status: string | null;
  scores: string;
  cost_usd: number | null;
  judge_cost_usd: number | null;
  steps: number | null;
  error: string | null;
  started_at: number | null;
  finished_at: number | null;
}

export interface ItemRow extends ItemView {
  item: string;
  /** `{ <scorer key>: <judge session id> }` while judges run. */
  judges: string | null;
  /** `{ answer, output }` of the item's session, kept while its judges run. */
  outcome: string | null;
}

export function countEvals(sql: SqlStorage): number {
  return sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM evals").one().n;
}

export function insertEval(sql: SqlStorage, id: string, config: EvalConfig, items: DatasetItem[], createdBy: string, now: number): void {
  sql.exec(
    "INSERT INTO evals (id, config, status, error, created_by, created_at, finished_at) VALUES (?, ?, 'running', NULL, ?, ?, NULL)",
    id,
    JSON.stringify(config),
    createdBy,
    now,
  );
  items.forEach((item, position) =>
    sql.exec(
      "INSERT INTO eval_items (eval_id, position, item, status, scores) VALUES (?, ?, ?, 'pending', '{}')",
      id,
      position,
      JSON.stringify(item),
    ),
  );
}

export function getEval(sql: SqlStorage, id: string): EvalRow | null {
  return sql.exec<EvalRow>("SELECT * FROM evals WHERE id = ?", id).toArray()[0] ?? null;
}

export function configOf(row: EvalRow): EvalConfig {
  return JSON.parse(row.config) as EvalConfig;
}

export function runningEvals(sql: SqlStorage): EvalRow[] {
  return sql.exec<EvalRow>("SELECT * FROM evals WHERE status = 'running' ORDER BY created_at, id").toArray();
}

export function finishEval(sql: SqlStorage, id: string, status: EvalStatus, error: string | null, now: number): void {
  sql.exec("UPDATE evals SET status = ?, error = ?, finished_at = ? WHERE id = ? AND status = 'running'", status, error, now, id);
}

/** An eval's items as answers show them, without the columns of up to 64 KiB each that only the runner reads. */
export function items(sql: SqlStorage, evalId: string): ItemView[] {
  return sql
    .exec<ItemView>(
      `SELECT eval_id, position, session_id, status, session_status, scores, cost_usd, judge_cost_usd, steps, error, started_at, finished_at
       FROM eval_items WHERE eval_id = ? ORDER BY position`,
      evalId,
    )
    .toArray();
}

/** An eval's items summed in SQL, for its summary: nothing of any one item is read into memory. */
export interface ItemTotals {
  counts: Record<EvalItemStatus, number>;
  cost_usd: number;
  judge_cost_usd: number;
  /** The latest start and end of any item (epoch ms), null when none. */
  last_started_at: number | null;
  last_finished_at: number | null;
  /** Each scorer's mean over the items it scored with a number. */
  means: Record<string, number>;
}

export function itemTotals(sql: SqlStorage, evalId: string): ItemTotals {
  const sums = sql
    .exec<{ cost: number | null; judge: number | null; started: number | null; finished: number | null }>(
      `SELECT SUM(cost_usd) AS cost, SUM(judge_cost_usd) AS judge, MAX(started_at) AS started, MAX(finished_at) AS finished
       FROM eval_items WHERE eval_id = ?`,
      evalId,
    )
    .one();
  const means: Record<string, number> = {};
  for (const row of sql.exec<{ key: string; mean: number | null }>(
    `SELECT score.key AS key, AVG(json_extract(score.value, '$.score')) AS mean
     FROM eval_items, json_each(eval_items.scores) AS score
     WHERE eval_items.eval_id = ? AND json_type(score.value, '$.score') IN ('integer', 'real')
     GROUP BY score.key`,
    evalId,
  ))
    if (row.mean !== null) means[row.key] = row.mean;
  return {
    counts: countItems(sql, evalId),
    cost_usd: sums.cost ?? 0,
    judge_cost_usd: sums.judge ?? 0,
    last_started_at: sums.started,
    last_finished_at: sums.finished,
    means,
  };
}

export function itemsWith(sql: SqlStorage, evalId: string, statuses: readonly EvalItemStatus[], limit: number): ItemRow[] {
  const marks = statuses.map(() => "?").join(", ");
  return sql
    .exec<ItemRow>(
      `SELECT * FROM eval_items WHERE eval_id = ? AND status IN (${marks}) ORDER BY position LIMIT ?`,
      evalId,
      ...statuses,
      limit,
    )
    .toArray();
}

export function countItems(sql: SqlStorage, evalId: string): Record<EvalItemStatus, number> {
  const counts: Record<EvalItemStatus, number> = { pending: 0, running: 0, judging: 0, done: 0, failed: 0, cancelled: 0 };
  for (const r of sql.exec<{ status: EvalItemStatus; n: number }>(
    "SELECT status, COUNT(*) AS n FROM eval_items WHERE eval_id = ? GROUP BY status",
    evalId,
  ))
    counts[r.status] = r.n;
  return counts;
}

/** One item's change; the fields not given stay. */
export function updateItem(
  sql: SqlStorage,
  evalId: string,
  position: number,
  change: Partial<
    Pick<
      ItemRow,
      | "session_id"
      | "status"
      | "session_status"
      | "judges"
      | "outcome"
      | "scores"
      | "cost_usd"
      | "judge_cost_usd"
      | "steps"
      | "error"
      | "started_at"
      | "finished_at"
    >
  >,
): void {
  const keys = Object.keys(change) as (keyof typeof change)[];
  if (keys.length === 0) return;
  sql.exec(
    `UPDATE eval_items SET ${keys.map((k) => `${k} = ?`).join(", ")} WHERE eval_id = ? AND position = ?`,
    ...keys.map((k) => change[k] ?? null),
    evalId,
    position,
  );
}

export function cancelPending(sql: SqlStorage, evalId: string, now: number): void {
  sql.exec("UPDATE eval_items SET status = 'cancelled', finished_at = ? WHERE eval_id = ? AND status = 'pending'", now, evalId);
}

export function toItem(row: ItemView): EvalItem {
  return {
    index: row.position,
    session_id: row.session_id,
    status: row.status,
    session_status: row.session_status,
    scores: JSON.parse(row.scores) as Record<string, ItemScore>,
    cost_usd: row.cost_usd,
    judge_cost_usd: row.judge_cost_usd,
    steps: row.steps,
    error: row.error,
  };
}

/** Newest first by (created_at, id). */
export function listEvals(sql: SqlStorage, limit: number, cursor: string | null): { rows: EvalRow[]; next_cursor: string | null } {
  const args: (string | number)[] = [];
  let where = "";
  if (cursor !== null) {
    const after = decodeTimeIdCursor("evals", cursor);
    if (!after) throw new RangeError("invalid cursor");
    where = "WHERE (created_at, id) < (?, ?)";
    args.push(after.ms, after.id);
  }
  const rows = sql.exec<EvalRow>(`SELECT * FROM evals ${where} ORDER BY created_at DESC, id DESC LIMIT ?`, ...args, limit + 1).toArray();
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { rows: page, next_cursor: rows.length > limit && last ? encodeTimeIdCursor("evals", last.created_at, last.id) : null };
}

export function createdAtIso(row: EvalRow): string {
  return toIso(row.created_at);
}
