/**
 * Idempotency records for POSTs that create or start something: the first request's response is
 * kept for 24 h under (scope, key) and replayed to a retry with the same body. Expired rows are
 * purged a few at a time on each begin, so no alarm or timer is needed.
 */
import type { BeginIdempotentInput, CompleteIdempotentInput, IdempotencyBegin, ReleaseIdempotentInput } from "./types";
import { requireInt, requireNow, requireString } from "../shared/validate";

/** How long a response can be replayed (the public contract's 24 h). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A request still in progress after this long is taken to have died without completing (the
 * gateway crashed or lost its connection), so a retry may go ahead instead of waiting a day.
 */
export const IDEMPOTENCY_LOCK_MS = 2 * 60 * 1000;
/** Expired rows deleted per begin: enough to keep up, small enough to bound the work. */
export const IDEMPOTENCY_PURGE_BATCH = 50;
/** A Durable Object SQLite value may be at most 2 MB; stay clear of it. */
export const MAX_IDEMPOTENT_BODY_CHARS = 1_500_000;
/** Scopes and keys can be long-ish (a subject plus a route); bodies are hashed before they get here. */
const MAX_IDEMPOTENCY_FIELD_CHARS = 1024;

export function parseReleaseIdempotent(input: ReleaseIdempotentInput): ReleaseIdempotentInput {
  return {
    scope: requireString("scope", input.scope, MAX_IDEMPOTENCY_FIELD_CHARS),
    key: requireString("key", input.key, MAX_IDEMPOTENCY_FIELD_CHARS),
  };
}

export function parseBeginIdempotent(input: BeginIdempotentInput): BeginIdempotentInput {
  return {
    ...parseReleaseIdempotent(input),
    bodyHash: requireString("bodyHash", input.bodyHash, MAX_IDEMPOTENCY_FIELD_CHARS),
    now: requireNow(input.now),
  };
}

export function parseCompleteIdempotent(input: CompleteIdempotentInput): CompleteIdempotentInput {
  return {
    ...parseReleaseIdempotent(input),
    status: requireInt("status", input.status, 100, 599),
    body: input.body,
    now: requireNow(input.now),
  };
}

interface IdempotencyRow extends Record<string, string | number | null> {
  body_hash: string;
  status: number | null;
  body: string | null;
  created_at: number;
}

export function beginIdempotent(sql: SqlStorage, input: BeginIdempotentInput): IdempotencyBegin {
  const { scope, key, bodyHash, now } = input;
  sql.exec(
    `DELETE FROM idempotency WHERE rowid IN (SELECT rowid FROM idempotency WHERE created_at <= ? LIMIT ?)`,
    now - IDEMPOTENCY_TTL_MS,
    IDEMPOTENCY_PURGE_BATCH,
  );
  const row = sql
    .exec<IdempotencyRow>(`SELECT body_hash, status, body, created_at FROM idempotency WHERE scope = ? AND key = ?`, scope, key)
    .toArray()[0];
  const decision = decide(row, bodyHash, now);
  if (decision.state === "new") {
    sql.exec(
      `INSERT INTO idempotency (scope, key, body_hash, status, body, created_at) VALUES (?, ?, ?, NULL, NULL, ?)
       ON CONFLICT (scope, key) DO UPDATE SET body_hash = excluded.body_hash, status = NULL, body = NULL, created_at = excluded.created_at`,
      scope,
      key,
      bodyHash,
      now,
    );
  }
  return decision;
}

/** Pure: what a begin means given the stored row (if any). */
export function decide(row: IdempotencyRow | undefined, bodyHash: string, now: number): IdempotencyBegin {
  if (!row || row.created_at <= now - IDEMPOTENCY_TTL_MS) return { state: "new" };
  if (row.body_hash !== bodyHash) return { state: "conflict" };
  if (row.status === null || row.body === null) {
    return row.created_at <= now - IDEMPOTENCY_LOCK_MS ? { state: "new" } : { state: "in_progress" };
  }
  return { state: "replay", status: row.status, body: JSON.parse(row.body) as unknown };
}

/**
 * Stores the response of a begun request. Returns false when there is nothing in progress to
 * complete (it expired, or is already completed), in which case nothing is stored.
 */
export function completeIdempotent(sql: SqlStorage, input: CompleteIdempotentInput): boolean {
  const body = JSON.stringify(input.body ?? null);
  if (body.length > MAX_IDEMPOTENT_BODY_CHARS) throw new RangeError("response body too large to keep for replay");
  const written = sql.exec(
    `UPDATE idempotency SET status = ?, body = ? WHERE scope = ? AND key = ? AND status IS NULL AND created_at > ?`,
    input.status,
    body,
    input.scope,
    input.key,
    input.now - IDEMPOTENCY_TTL_MS,
  ).rowsWritten;
  return written > 0;
}

/**
 * Forgets a begun request that will not be kept for replay (it was refused for now, or failed
 * on our side), so that a retry with the same key runs at once. A completed record stays.
 */
export function releaseIdempotent(sql: SqlStorage, input: ReleaseIdempotentInput): boolean {
  return sql.exec(`DELETE FROM idempotency WHERE scope = ? AND key = ? AND status IS NULL`, input.scope, input.key).rowsWritten > 0;
}
