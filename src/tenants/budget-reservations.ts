/**
 * Budget reservations: a run admitted against a daily token budget holds its worst case (its
 * session's `max_tokens_per_session`) against the tenant's, its creator's and its API key's
 * budgets until it ends, so starts that arrive together cannot all see the same unspent budget.
 * A reservation counts only what its run has not spent yet (its session's tokens since it was
 * made are in the spend already), is settled by the report of the run's end or the session's
 * removal, and lapses with the UTC day it was made for (every daily budget renews then), so a
 * session object that never reports again leaks nothing past midnight.
 */
import { utcDay } from "../shared/validate";

/**
 * A run's worst case: what its session may still spend under the tenant's cap and its own, less
 * what it already used (`max_tokens_per_session` is for the session's whole life, not one run).
 */
export function runReservation(tenantCap: number, sessionCap: number, usedTokens: number): number {
  return Math.max(0, Math.min(tenantCap, sessionCap) - usedTokens);
}

/** Tokens still reserved by runs going today: the tenant's all, and those of one creator and one key. */
export interface Reserved {
  tenant: number;
  subject: number;
  key: number;
}

/** What a reservation has not spent: its tokens less its session's tokens since it was made (a session not listed yet spent none). */
const OUTSTANDING = `MAX(0, r.tokens - (COALESCE(s.input_tokens + s.output_tokens + s.cache_read_tokens + s.cache_write_tokens, r.base_tokens) - r.base_tokens))`;

/** Today's outstanding reservations, leaving out `sessionId`'s own (a new run of it replaces it). */
export function reservedTokens(sql: SqlStorage, now: number, createdBy: string, apiKeyId: string, sessionId: string): Reserved {
  const row = sql
    .exec<{ tenant: number | null; subject: number | null; key: number | null }>(
      `SELECT SUM(${OUTSTANDING}) AS tenant,
         SUM(CASE WHEN r.created_by = ? THEN ${OUTSTANDING} ELSE 0 END) AS subject,
         SUM(CASE WHEN r.api_key_id = ? AND r.api_key_id <> '' THEN ${OUTSTANDING} ELSE 0 END) AS key
       FROM budget_reservations r LEFT JOIN sessions s ON s.id = r.session_id
       WHERE r.day = ? AND r.session_id <> ?`,
      createdBy,
      apiKeyId,
      utcDay(now),
      sessionId,
    )
    .one();
  return { tenant: row.tenant ?? 0, subject: row.subject ?? 0, key: row.key ?? 0 };
}

/**
 * Reserves `tokens` for the run `sessionId` is starting, replacing an earlier run's; yesterday's
 * lapse here. `shard`: the shard the run is on, for a reservation the index holds for it ('' for its own).
 */
export function reserveTokens(
  sql: SqlStorage,
  sessionId: string,
  createdBy: string,
  apiKeyId: string,
  tokens: number,
  now: number,
  shard = "",
): void {
  const day = utcDay(now);
  sql.exec(`DELETE FROM budget_reservations WHERE day < ?`, day);
  const spent = sql
    .exec<{ n: number }>(
      `SELECT input_tokens + output_tokens + cache_read_tokens + cache_write_tokens AS n FROM sessions WHERE id = ?`,
      sessionId,
    )
    .toArray()[0];
  sql.exec(
    `INSERT OR REPLACE INTO budget_reservations (session_id, created_by, api_key_id, tokens, base_tokens, day, shard) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    sessionId,
    createdBy,
    apiKeyId,
    tokens,
    spent?.n ?? 0,
    day,
    shard,
  );
}

/** Whether `sessionId`'s run holds a reservation (of any day). */
export function holdsReservation(sql: SqlStorage, sessionId: string): boolean {
  return sql.exec(`SELECT 1 FROM budget_reservations WHERE session_id = ?`, sessionId).toArray().length > 0;
}

/** The run ended (or never started, or its session went): what it spent is in the spend, and nothing more is held. */
export function settleReservation(sql: SqlStorage, sessionId: string): void {
  sql.exec(`DELETE FROM budget_reservations WHERE session_id = ?`, sessionId);
}

/** Today's reservations and what each has not spent yet: what a shard tells the index its runs hold (shards/spend.ts). */
export function heldReservations(sql: SqlStorage, now: number): { session_id: string; tokens: number }[] {
  return sql
    .exec<{ session_id: string; tokens: number }>(
      `SELECT r.session_id AS session_id, ${OUTSTANDING} AS tokens FROM budget_reservations r LEFT JOIN sessions s ON s.id = r.session_id
       WHERE r.day = ? ORDER BY r.session_id`,
      utcDay(now),
    )
    .toArray()
    .map((row) => ({ ...row }));
}
