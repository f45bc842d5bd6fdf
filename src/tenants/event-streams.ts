/**
 * The tenant's open event streams, as far as the index must know them: which sessions have a
 * stream opened with which API key, until when. A key's revocation or the tenant's suspension
 * closes those streams through their session objects at once, so an idle stream needs no polling.
 * A row may outlive its stream (a watcher that left): closing it again is harmless, and every
 * row goes when its deadline passes.
 */
import { sessionStub } from "../objects";
import { log } from "../log";
import { type ApiKeyRecord, keyStandingProblem } from "../auth/api-keys";
import { CANCEL_CONCURRENCY } from "./bulk-cancel";
import type { NoteStreamInput, StreamNote } from "./types";
import { requireNow, requireString } from "./validate";

/** Expired rows removed per new stream, so the table never needs a sweep of its own. */
export const EXPIRED_STREAM_ROWS_PER_NOTE = 100;
/** The `key_id` of a stream whose credential has no API key behind it. */
const NO_KEY = "";

export function parseNoteStream(input: NoteStreamInput): NoteStreamInput {
  return {
    sessionId: requireString("sessionId", input.sessionId),
    keyId: input.keyId === null ? null : requireString("keyId", input.keyId),
    expiresAt: requireNow(input.expiresAt),
    now: requireNow(input.now),
  };
}

/**
 * Notes a stream unless its key no longer stands or the tenant is suspended. Pure apart from
 * `sql`: the key's record and the suspension are read by the caller in the same turn.
 */
export function noteStream(sql: SqlStorage, input: NoteStreamInput, key: ApiKeyRecord | null, suspended: boolean): StreamNote {
  if (suspended) return { ok: false, reason: "suspended" };
  if (input.keyId !== null && (key === null || keyStandingProblem(key, input.now) !== null)) return { ok: false, reason: "credentials" };
  sql.exec(
    `DELETE FROM event_streams WHERE rowid IN (SELECT rowid FROM event_streams WHERE expires_at <= ? LIMIT ?)`,
    input.now,
    EXPIRED_STREAM_ROWS_PER_NOTE,
  );
  sql.exec(
    `INSERT INTO event_streams (session_id, key_id, expires_at) VALUES (?, ?, ?)
     ON CONFLICT (session_id, key_id) DO UPDATE SET expires_at = max(expires_at, excluded.expires_at)`,
    input.sessionId,
    input.keyId ?? NO_KEY,
    input.expiresAt,
  );
  return { ok: true };
}

/** Sessions with a stream opened with `keyId` that may still be open. */
export function sessionsStreamingWithKey(sql: SqlStorage, keyId: string, now: number): string[] {
  return sql
    .exec(`SELECT DISTINCT session_id FROM event_streams WHERE key_id = ? AND expires_at > ?`, keyId, now)
    .toArray()
    .map((row) => String(row.session_id));
}

/** Every session with a stream that may still be open. */
export function sessionsStreaming(sql: SqlStorage, now: number): string[] {
  return sql
    .exec(`SELECT DISTINCT session_id FROM event_streams WHERE expires_at > ?`, now)
    .toArray()
    .map((row) => String(row.session_id));
}

/**
 * Asks each session's session object to close the streams `filter` selects, a few at a time; one that
 * cannot be reached is logged and left to its stream's deadline. Returns how many closed.
 */
export async function closeStreamsOf(
  env: Cloudflare.Env,
  tenantId: string,
  sessionIds: readonly string[],
  filter: { all: true } | { keyId: string },
  why: "credentials" | "suspended",
): Promise<number> {
  let closed = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < sessionIds.length) {
      const sessionId = sessionIds[next++] as string;
      try {
        closed += await sessionStub(env, tenantId, sessionId).closeStreams(filter, why);
      } catch (error) {
        log("error", "close_streams_failed", { tenant_id: tenantId, session_id: sessionId, error: String(error) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CANCEL_CONCURRENCY, sessionIds.length) }, worker));
  return closed;
}
