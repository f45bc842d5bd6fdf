/**
 * The tenant's open event streams, one row per stream (`open_streams`): which session has a
 * stream opened with which API key, until when. The rows serve two rules:
 * - a key's revocation or the tenant's suspension closes those streams through their session
 *   objects at once, so an idle stream needs no polling;
 * - `max_streams_per_tenant` counts them: a stream past it is refused.
 * A stream's session object removes its row when it closes (`forgetStreams`). A stream that goes
 * away without telling (its object crashed or was restarted by a deploy) leaves its row behind,
 * so the count is never trusted at the cap: there the index asks each session object which of
 * its streams are still open and drops the rows of the others (`recountOpenStreams`), at most
 * once per `STREAM_RECOUNT_INTERVAL_MS`. Every row also goes when its deadline passes.
 */
import { sessionStub } from "../objects";
import { log } from "../log";
import { type ApiKeyRecord, keyStandingProblem } from "../auth/api-keys";
import { eachSession } from "./each-session";
import type { NoteStreamInput, StreamNote } from "./types";
import { requireNow, requireString } from "../shared/validate";

/** Expired rows removed per new stream, so the table never needs a sweep of its own. */
export const EXPIRED_STREAM_ROWS_PER_NOTE = 100;
/** The least time between two recounts of a tenant's live streams (each asks every watched session object). */
export const STREAM_RECOUNT_INTERVAL_MS = 10_000;
/** Stream ids one `forgetStreams` call may name (a session object's closes of one turn). */
export const MAX_FORGOTTEN_STREAMS = 1_000;
/** The `key_id` of a stream whose credential has no API key behind it. */
const NO_KEY = "";
/** When the live streams were last recounted, epoch ms (key-value storage). */
const RECOUNTED_AT_KEY = "streams_recounted_at";

export function parseNoteStream(input: NoteStreamInput): NoteStreamInput {
  return {
    sessionId: requireString("sessionId", input.sessionId),
    streamId: requireString("streamId", input.streamId),
    keyId: input.keyId === null ? null : requireString("keyId", input.keyId),
    expiresAt: requireNow(input.expiresAt),
    now: requireNow(input.now),
  };
}

/**
 * Notes a stream unless its key no longer stands, the tenant is suspended, or `max` streams are
 * open. Pure apart from `sql`: the key's record, the suspension and the limit are read by the
 * caller in the same turn. The stream's deadline comes forward to its key's expiry: a token
 * exchanged from a key may outlive the key, a stream opened with it may not.
 */
export function noteStream(
  sql: SqlStorage,
  input: NoteStreamInput,
  key: ApiKeyRecord | null,
  suspended: boolean,
  max: number,
  retryAfterSeconds: number,
): StreamNote {
  if (suspended) return { ok: false, reason: "suspended" };
  if (input.keyId !== null && (key === null || keyStandingProblem(key, input.now) !== null)) return { ok: false, reason: "credentials" };
  sql.exec(
    `DELETE FROM open_streams WHERE rowid IN (SELECT rowid FROM open_streams WHERE expires_at <= ? LIMIT ?)`,
    input.now,
    EXPIRED_STREAM_ROWS_PER_NOTE,
  );
  if (countOpenStreams(sql, input.now) >= max) return { ok: false, reason: "limit", max, retryAfterSeconds };
  const keyExpiry = key?.expires_at ? Date.parse(key.expires_at) : Number.POSITIVE_INFINITY;
  const expiresAt = Math.min(input.expiresAt, keyExpiry);
  sql.exec(
    `INSERT INTO open_streams (stream_id, session_id, key_id, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (stream_id) DO NOTHING`,
    input.streamId,
    input.sessionId,
    input.keyId ?? NO_KEY,
    expiresAt,
  );
  return { ok: true, expiresAt };
}

/** Streams noted and not yet past their deadline (some may have gone without telling). */
export function countOpenStreams(sql: SqlStorage, now: number): number {
  return Number(sql.exec(`SELECT count(*) AS n FROM open_streams WHERE expires_at > ?`, now).one().n);
}

/** Removes the rows of streams that closed; unknown ids are ignored. */
export function forgetStreams(sql: SqlStorage, streamIds: unknown): number {
  if (!Array.isArray(streamIds) || streamIds.length > MAX_FORGOTTEN_STREAMS)
    throw new TypeError(`streamIds must be an array of at most ${MAX_FORGOTTEN_STREAMS} ids`);
  let removed = 0;
  for (const id of streamIds)
    removed += sql.exec(`DELETE FROM open_streams WHERE stream_id = ?`, requireString("streamId", id)).rowsWritten;
  return removed;
}

/** Whether a recount may run now (none in the last interval). */
export function recountDue(kv: SyncKvStorage, now: number): boolean {
  return recountWait(kv, now) === 0;
}

/** Whole seconds until the next recount may run, at least 1: what a refused stream is told to wait. */
export function recountRetryAfterSeconds(kv: SyncKvStorage, now: number): number {
  return Math.max(1, Math.ceil((recountWait(kv, now) || STREAM_RECOUNT_INTERVAL_MS) / 1000));
}

function recountWait(kv: SyncKvStorage, now: number): number {
  const last = kv.get<number>(RECOUNTED_AT_KEY) ?? 0;
  return Math.max(0, last + STREAM_RECOUNT_INTERVAL_MS - now);
}

/**
 * Asks each session object with a noted stream which of its streams are open, and drops the rows
 * of the others: only the rows read before asking, so a stream noted meanwhile is kept. A session
 * object that cannot be reached keeps its rows. Returns how many rows went.
 */
export async function recountOpenStreams(
  env: Cloudflare.Env,
  tenantId: string,
  sql: SqlStorage,
  kv: SyncKvStorage,
  now: number,
): Promise<number> {
  kv.put(RECOUNTED_AT_KEY, now);
  const noted = new Map<string, string[]>();
  for (const row of sql.exec(`SELECT stream_id, session_id FROM open_streams WHERE expires_at > ?`, now)) {
    const sessionId = String(row.session_id);
    noted.set(sessionId, [...(noted.get(sessionId) ?? []), String(row.stream_id)]);
  }
  const gone: string[] = [];
  await callEachSession(env, tenantId, [...noted.keys()], "recount_streams_failed", async (session, sessionId) => {
    const answer = await session.openStreamIds();
    // An erased session has no streams.
    const open = new Set(answer.ok ? answer.value : []);
    gone.push(...(noted.get(sessionId) ?? []).filter((id) => !open.has(id)));
  });
  for (const id of gone) sql.exec(`DELETE FROM open_streams WHERE stream_id = ?`, id);
  return gone.length;
}

/** Sessions with a stream opened with `keyId` that may still be open. */
export function sessionsStreamingWithKey(sql: SqlStorage, keyId: string, now: number): string[] {
  return sql
    .exec(`SELECT DISTINCT session_id FROM open_streams WHERE key_id = ? AND expires_at > ?`, keyId, now)
    .toArray()
    .map((row) => String(row.session_id));
}

/** Every session with a stream that may still be open. */
export function sessionsStreaming(sql: SqlStorage, now: number): string[] {
  return sql
    .exec(`SELECT DISTINCT session_id FROM open_streams WHERE expires_at > ?`, now)
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
  await callEachSession(env, tenantId, sessionIds, "close_streams_failed", async (session) => {
    closed += await session.closeStreams(filter, why);
  });
  return closed;
}

/** Runs `call` on each session's object, a few at a time; a failure is logged and skipped. */
async function callEachSession(
  env: Cloudflare.Env,
  tenantId: string,
  sessionIds: readonly string[],
  failureEvent: string,
  call: (session: ReturnType<typeof sessionStub>, sessionId: string) => Promise<void>,
): Promise<void> {
  await eachSession(sessionIds, async (sessionId) => {
    try {
      await call(sessionStub(env, tenantId, sessionId), sessionId);
    } catch (error) {
      log("error", failureEvent, { tenant_id: tenantId, session_id: sessionId, error: String(error) });
    }
  });
}
