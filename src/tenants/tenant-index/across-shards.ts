/**
 * The index's session reads and changes once the tenant has shards: its own rows and every
 * shard's (shards/across.ts merges them). A tenant never sharded asks no shard.
 */
import type { AuditContext } from "../../audit/types";
import type { Page, SessionSummary } from "../../session-config/types";
import type { RollupRow } from "../../usage/rollup";
import { optionalCursor, requirePageLimit, requireString } from "../../shared/validate";
import { everyShard, shardFor, type ShardLayout, type ShardRef } from "../../shared/shard-layout";
import { tenantShardStub } from "../../objects";
import { sessionCanceller, cancelEach } from "../bulk-cancel";
import { mergePages, shardStubs, sumCounts, sumRollups, sumUsageDays } from "../shards/across";
import * as store from "../sessions-store";
import { leasedTotal } from "../shards/leases";
import { RUN_SLOT_RETRY_AFTER_SECONDS } from "../run-slots";
import { reclaimSpares } from "./shards";
import { parseRollupQuery, rollupColumns } from "../usage-rollup";
import type * as T from "../types";
import type { IndexHost } from "./host";
import * as sessions from "./sessions";

function layouts(host: IndexHost | null): ShardLayout[] {
  return host ? host.config().layouts : [];
}

/** Every shard of the tenant; none for an index no tenant was entered in. */
function shardsOf(host: IndexHost | null, tenantId: string) {
  return host ? shardStubs(host.env, tenantId, layouts(host)) : [];
}

/** The shard of each sharded generation that `sessionId` hashes to there (a lookup by id asks one per generation). */
function candidates(host: IndexHost, sessionId: string): ShardRef[] {
  return layouts(host).flatMap((layout) => shardFor(sessionId, layout) ?? []);
}

export async function listSessions(host: IndexHost | null, tenantId: string, input: T.ListSessionsInput): Promise<Page<SessionSummary>> {
  const own = sessions.listSessions(host?.sql ?? null, input);
  const shards = shardsOf(host, tenantId);
  if (shards.length === 0) return own;
  const limit = requirePageLimit(input.limit);
  const asked = { ...store.parseSessionFilter(input), limit, cursor: optionalCursor(input.cursor) };
  return mergePages([own, ...(await Promise.all(shards.map((shard) => shard.listSessions(tenantId, asked))))], limit);
}

export async function counts(host: IndexHost | null, tenantId: string): Promise<T.StatusCounts> {
  const own = sessions.counts(host?.sql ?? null);
  const shards = shardsOf(host, tenantId);
  return shards.length === 0 ? own : sumCounts([own, ...(await Promise.all(shards.map((shard) => shard.counts(tenantId))))]);
}

export async function usage(host: IndexHost | null, tenantId: string, input: T.UsageInput): Promise<T.UsageDay[]> {
  const now = input.now === undefined ? Date.now() : input.now;
  const own = sessions.usage(host?.sql ?? null, { ...input, now });
  const shards = shardsOf(host, tenantId);
  if (shards.length === 0) return own;
  return sumUsageDays([own, ...(await Promise.all(shards.map((shard) => shard.usage(tenantId, { days: input.days, now }))))]);
}

export async function usageRollup(host: IndexHost | null, tenantId: string, input: T.UsageRollupInput): Promise<RollupRow[]> {
  const own = sessions.usageRollup(host?.sql ?? null, input);
  const shards = shardsOf(host, tenantId);
  if (shards.length === 0) return own;
  const columns = rollupColumns(parseRollupQuery(input));
  return sumRollups([own, ...(await Promise.all(shards.map((shard) => shard.usageRollup(tenantId, input))))], columns);
}

/** Where `sessionId`'s row is (`ref` null: the index's own) and the row; null when no one holds it. */
async function locate(
  host: IndexHost,
  tenantId: string,
  sessionId: string,
): Promise<{ ref: ShardRef | null; summary: SessionSummary } | null> {
  const own = sessions.getSessionSummary(host.sql, sessionId);
  if (own) return { ref: null, summary: own };
  for (const ref of candidates(host, sessionId)) {
    const summary = await tenantShardStub(host.env, tenantId, ref).getSessionSummary(tenantId, sessionId);
    if (summary) return { ref, summary };
  }
  return null;
}

export async function getSessionSummary(host: IndexHost, tenantId: string, sessionId: string): Promise<SessionSummary | null> {
  return (await locate(host, tenantId, sessionId))?.summary ?? null;
}

export async function cancellableSessions(host: IndexHost, tenantId: string, sessionIds: string[]): Promise<string[]> {
  const own = sessions.cancellableSessions(host.sql, sessionIds);
  const shards = shardsOf(host, tenantId);
  if (shards.length === 0) return own;
  const found = await Promise.all(shards.map((shard) => shard.cancellableSessions(tenantId, sessionIds)));
  return [...own, ...found.flat()];
}

/** Removes the row where it is (the index's, else its shard's); the entry is the index's either way. */
export async function removeSession(host: IndexHost, tenantId: string, sessionId: string, by?: AuditContext): Promise<boolean> {
  const id = requireString("sessionId", sessionId);
  if (await sessions.removeSession(host, id, by)) return true;
  for (const ref of candidates(host, id)) {
    if (await tenantShardStub(host.env, tenantId, ref).removeSession(tenantId, id)) {
      host.audit(by, { action: "session.deleted", target: { type: "session", id } });
      return true;
    }
  }
  return false;
}

/** Every active session's id, the index's and each shard's, that `filter` (parsed) selects. */
export async function activeSessionIds(host: IndexHost, tenantId: string, filter: T.SessionFilter): Promise<string[]> {
  const own = store.activeSessionIds(host.sql, filter);
  const shards = shardsOf(host, tenantId);
  if (shards.length === 0) return own;
  return [...own, ...(await Promise.all(shards.map((shard) => shard.activeSessionIds(tenantId, filter)))).flat()];
}

/** As `cancelSessions` on one object: the entry first, with every session matched on every shard. */
export async function cancelSessions(
  host: IndexHost,
  tenantId: string,
  filter: T.SessionFilter,
  by?: AuditContext,
): Promise<T.CancelResult> {
  const parsed = store.parseSessionFilter(filter ?? {});
  const ids = await activeSessionIds(host, tenantId, parsed);
  if (ids.length === 0) return { cancelled: 0 };
  host.audit(by, {
    action: "sessions.cancelled_in_bulk",
    target: { type: "tenant", id: tenantId },
    details: { filter: filter ?? {}, sessions_matched: ids.length },
  });
  return { cancelled: await cancelEach(ids, sessionCanceller(host.env, tenantId)) };
}

export async function cancelActive(host: IndexHost, tenantId: string, filter: T.SessionFilter): Promise<T.CancelResult> {
  const ids = await activeSessionIds(host, tenantId, filter);
  return { cancelled: await cancelEach(ids, sessionCanceller(host.env, tenantId)) };
}

/**
 * A run of an existing session (a message, an approval): admitted where the session is. A
 * session no one lists yet while the tenant has shards (its first report still owed) may be on
 * a shard: it is told to try again shortly rather than given one of the index's slots.
 */
export async function admitRun(host: IndexHost, tenantId: string, input: T.AdmitRunInput): Promise<T.RunAdmission> {
  const id = requireString("sessionId", input.sessionId);
  // A new session the gateway placed on the index (a fork): its slot is the index's, whatever the shards list.
  if (input.newSession === true) return withSpares(host, tenantId, async () => sessions.admitRun(host, input));
  const found = await locate(host, tenantId, id);
  if (found?.ref) return tenantShardStub(host.env, tenantId, found.ref).admitRun(tenantId, found.ref, input);
  if (!found && candidates(host, id).length > 0) return { ok: false, code: "busy", retryAfterSeconds: RUN_SLOT_RETRY_AFTER_SECONDS };
  return withSpares(host, tenantId, async () => sessions.admitRun(host, input));
}

/** A new session's admission and listing on the index, taking the shards' spare slots back first when none is free. */
export async function admitSession(
  host: IndexHost,
  tenantId: string,
  input: T.AdmitRunInput,
  report: T.SessionReport,
): Promise<T.SessionAdmission> {
  return withSpares(host, tenantId, () => sessions.admitSession(host, tenantId, input, report));
}

/** A slot for one of the index's own sessions, taking the shards' spare slots back first when none is free. */
export async function acquireRun(
  host: IndexHost,
  tenantId: string,
  sessionId: string,
  maxConcurrent: number,
  now: number,
): Promise<T.RunSlot> {
  return withSpares(host, tenantId, async () => sessions.acquireRun(host, sessionId, maxConcurrent, now));
}

/** An admission on the index's own slots; refused as busy while shards hold slots, asked once more after their spares came back. */
async function withSpares<R extends T.RunAdmission | T.SessionAdmission>(
  host: IndexHost,
  tenantId: string,
  admit: () => Promise<R>,
): Promise<R> {
  const first = await admit();
  if (first.ok || first.code !== "busy" || leasedTotal(host.sql) === 0) return first;
  await reclaimSpares(host, tenantId, "", 1);
  return admit();
}

export async function releaseRun(host: IndexHost, tenantId: string, sessionId: string, failedStart?: boolean): Promise<void> {
  const ref = (await locate(host, tenantId, requireString("sessionId", sessionId)))?.ref;
  if (ref) return tenantShardStub(host.env, tenantId, ref).releaseRun(tenantId, ref, sessionId, failedStart);
  return sessions.releaseRun(host, sessionId, failedStart);
}

/** Every shard, for a pass over all of them (retention, deletion). */
export function allShards(host: IndexHost): ShardRef[] {
  return everyShard(layouts(host));
}
