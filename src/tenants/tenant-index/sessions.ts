/** The tenant index's session calls: the session objects' reports, the index's listing, run slots, bulk cancel and usage. */
import { expiresAt, isRetentionErasable } from "../../session-config/retention";
import type { AuditContext } from "../../audit/types";
import { log } from "../../log";
import { sessionStub } from "../../objects";
import type { ReportRow } from "../session-report";
import type { Page, SessionSummary } from "../../session-config/types";
import { acquireRunSlot, followReport, forgetSession, grantedSessions, grantQueuedSlots, queueLength, releaseRunSlot } from "../run-slots";
import { parseSessionReport } from "../session-report";
import * as sessions from "../sessions-store";
import type * as T from "../types";
import { MAX_USAGE_DAYS, usageDays } from "../usage";
import { MAX_MCP_BATCH_MESSAGES } from "../../limits";
import type { SpendParts } from "../../usage/budgets";
import { keyTokenBudget } from "../api-key-store";
import { parseRollupQuery, queryRollup } from "../usage-rollup";
import type { RollupRow } from "../../usage/rollup";
import { optionalCursor, requireInt, requireNow, requirePageLimit, requireString } from "../../shared/validate";
import type { IndexHost } from "./host";
import { takeNotifications } from "./notifications";
import { reserveTokens, settleReservation } from "../budget-reservations";
import { RETAINABLE_STATUSES } from "../../session-config/retention";
import { followBudgetWait, forgetBudgetWait } from "../budget-waits";
import { policyVersion } from "../tool-policy";
import { leasedTotal } from "../shards/leases";
import { reclaimSpares } from "./shards";
import { judgeBudgets, tenantSpendOnDay, tenantTokensOnDay } from "./run-budgets";

/** A batch of notifications the index refuses is logged and answered, never fails the report. */
export async function reportSession(
  host: IndexHost,
  tenantId: string,
  report: T.SessionReport,
  notifications?: unknown,
): Promise<T.ReportAck> {
  const row = parseSessionReport(report);
  const applied = host.transaction(() => applyReport(host.sql, row));
  if (applied) await host.schedulePump();
  // A session that may now expire: the alarm fires by then (an earlier one set stays).
  const rule = applied && isRetentionErasable(row.status) && row.parent_session_id === null ? host.retention() : null;
  if (rule) await host.wakeBy(expiresAt(row.updated_at, rule.days, rule.dayMs));
  const now = Date.now();
  const { limits, suspended } = host.config();
  const keyBudget = keyTokenBudget(host.sql, row.api_key_id);
  // The parts a budget counts: the tenant's as it is now, the session's own limits' (a report of
  // code before `daily_budgets` says nothing of them: read), or the key's. The rest are 0.
  const parts: SpendParts = {
    cost: (limits.max_cost_usd_per_day ?? null) !== null || report.daily_budgets?.cost !== false,
    subject: (limits.max_tokens_per_day_per_subject ?? null) !== null || report.daily_budgets?.subject !== false,
    key: keyBudget !== null,
  };
  const ack: T.ReportAck = {
    applied,
    suspended,
    tokens_today: tenantTokensOnDay(host.sql, now),
    spend: {
      ...tenantSpendOnDay(host, now, row.created_by, row.api_key_id, parts),
      key_max_tokens_per_day: keyBudget,
    },
    policy_version: policyVersion(host.kv),
  };
  if (notifications === undefined) return ack;
  return withNotifications(ack, tenantId, row.id, () => takeNotifications(host, tenantId, notifications));
}

/** The answer to a report that carried notifications: whether `take` kept them; a refusal is logged, never the report's failure. */
export async function withNotifications(
  ack: T.ReportAck,
  tenantId: string,
  sessionId: string,
  take: () => Promise<unknown>,
): Promise<T.ReportAck> {
  try {
    await take();
    return { ...ack, notifications_taken: true };
  } catch (error) {
    log("error", "notifications_refused", { tenant_id: tenantId, session_id: sessionId, error: String(error) });
    return { ...ack, notifications_taken: false };
  }
}

/** A report applied to its row, with the run-slot bookkeeping it implies, inside the caller's transaction. */
export function applyReport(sql: SqlStorage, row: ReportRow): boolean {
  const applied = sessions.recordSessionReport(sql, row);
  if (applied) followReport(sql, row.id, row.status, row.updated_at);
  // The run ended: its spend is in the row now, its reservation no longer stands for it.
  if (applied && RETAINABLE_STATUSES.includes(row.status)) settleReservation(sql, row.id);
  if (applied) followBudgetWait(sql, row);
  return applied;
}

/** A session's row removed (with its tombstone), its slot and place in the queue with it, inside the caller's transaction. */
export function dropSession(sql: SqlStorage, id: string, now: number): boolean {
  const removed = sessions.removeSession(sql, id, now);
  forgetSession(sql, id, now);
  settleReservation(sql, id);
  forgetBudgetWait(sql, id);
  return removed;
}

/**
 * The alarm's pump: hands free run slots to queued sessions, oldest first, and tells each session
 * object. A session that cannot be told now is told again shortly; a grant it never takes up
 * lapses with its reservation and is made again. Queued session objects also ask by themselves now and then.
 */
export async function grantSlots(host: IndexHost, tenantId: string): Promise<void> {
  if (host.config().suspended) return;
  // Slots lent to shards are theirs until given back (shards/leases.ts): their spares are taken back for a queue left waiting.
  // The config is read at each grant: a suspension or a lower limit may come during the await.
  const grant = () => {
    const config = host.config();
    if (!config.suspended)
      host.transaction(() => grantQueuedSlots(host.sql, config.limits.max_concurrent_runs - leasedTotal(host.sql), Date.now()));
  };
  grant();
  const waiting = queueLength(host.sql) - grantedSessions(host.sql).length;
  if (waiting > 0 && leasedTotal(host.sql) > 0) {
    await reclaimSpares(host, tenantId, "", waiting);
    grant();
  }
  await tellGranted(host.env, tenantId, grantedSessions(host.sql));
}

/** Tells each granted session object of its slot; one not told now is told again by the next pump. */
export async function tellGranted(env: Cloudflare.Env, tenantId: string, sessionIds: readonly string[]): Promise<void> {
  await Promise.all(
    sessionIds.map((id) =>
      sessionStub(env, tenantId, id)
        .slotGranted()
        .catch((error: unknown) => log("warn", "slot_grant_undelivered", { tenant_id: tenantId, session_id: id, error: String(error) })),
    ),
  );
}

// The reads below take the tables they read (the index's, or a shard's: shards/shard.ts), so a shard answers them as the index does.

export function getSessionSummary(sql: SqlStorage, sessionId: string): SessionSummary | null {
  return sessions.getSession(sql, requireString("sessionId", sessionId));
}

/** Of at most `MAX_MCP_BATCH_MESSAGES` session ids, those a cancellation can still reach: one lookup for a whole batch. */
export function cancellableSessions(sql: SqlStorage, sessionIds: unknown): string[] {
  if (!Array.isArray(sessionIds) || sessionIds.length > MAX_MCP_BATCH_MESSAGES)
    throw new TypeError(`sessionIds must be an array of at most ${MAX_MCP_BATCH_MESSAGES} ids`);
  return sessions.cancellableSessionIds(
    sql,
    sessionIds.map((id, i) => requireString(`sessionIds[${i}]`, id)),
  );
}

/** The row goes last in an erase (src/sessions/erase.ts), so its removal is the change the log records. */
export async function removeSession(host: IndexHost, sessionId: string, by?: AuditContext): Promise<boolean> {
  const id = requireString("sessionId", sessionId);
  const removed = host.transaction(() => {
    const gone = dropSession(host.sql, id, Date.now());
    if (gone) host.audit(by, { action: "session.deleted", target: { type: "session", id } });
    return gone;
  });
  await host.schedulePump();
  return removed;
}

/** No tables (no tenant entered yet) is no sessions: the input is still checked. */
export function listSessions(sql: SqlStorage | null, input: T.ListSessionsInput): Page<SessionSummary> {
  const filter = sessions.parseSessionFilter(input);
  return sessions.listSessions(sql, filter, requirePageLimit(input.limit), optionalCursor(input.cursor));
}

export function acquireRun(host: IndexHost, sessionId: string, maxConcurrent: number, now: number): T.RunSlot {
  const id = requireString("sessionId", sessionId);
  const max = requireInt("maxConcurrent", maxConcurrent, 1);
  const at = requireNow(now);
  if (host.config().suspended) return { ok: false, code: "suspended" };
  return host.transaction(() => acquireRunSlot(host.sql, id, max - leasedTotal(host.sql), at));
}

/**
 * A new run's admission in one round trip: the daily budgets, each counting the tokens other runs
 * going today still hold reserved (./run-budgets.ts), then a slot as `acquireRun` takes it,
 * then, with a token budget to guard, the run's own reservation: all in one synchronous stretch,
 * so concurrent starts overspend a budget by at most the last one's reservation.
 */
export function admitRun(host: IndexHost, input: T.AdmitRunInput): T.RunAdmission {
  const judged = judgeBudgets(host, input);
  if (!judged.ok) return judged;
  const slot = acquireRun(host, judged.id, input.maxConcurrent, judged.at);
  if (slot.ok && judged.reserve > 0) reserveTokens(host.sql, judged.id, judged.createdBy, judged.apiKeyId, judged.reserve, judged.at);
  return slot;
}

/**
 * A new session's admission and first report in one call: the budgets and the slot as `admitRun`
 * takes them, then the report as `reportSession` applies it, with no await between (one synchronous
 * stretch of the index: both are kept, or neither). A session already listed was admitted by an
 * earlier call whose answer was lost: its report alone is applied, so asking again is safe.
 */
export async function admitSession(
  host: IndexHost,
  tenantId: string,
  input: T.AdmitRunInput,
  report: T.SessionReport,
): Promise<T.SessionAdmission> {
  const { id } = parseSessionReport(report);
  if (sessions.getSession(host.sql, id) === null) {
    const admission = admitRun(host, { ...input, sessionId: id });
    if (!admission.ok) return admission;
  }
  return { ok: true, ack: await reportSession(host, tenantId, report) };
}

/**
 * Gives back a slot claimed for a change that did not happen. Only a start that failed gives back
 * its budget reservation too: a refused resume's or approval's claim leaves that of the run still waiting.
 */
export async function releaseRun(host: IndexHost, sessionId: string, failedStart = false): Promise<void> {
  const id = requireString("sessionId", sessionId);
  host.transaction(() => {
    releaseRunSlot(host.sql, id);
    if (failedStart === true) settleReservation(host.sql, id);
  });
  await host.schedulePump();
}

export function counts(sql: SqlStorage | null): T.StatusCounts {
  return sessions.countByStatus(sql);
}

export function tokensToday(host: IndexHost, now: number): number {
  return tenantTokensOnDay(host.sql, requireNow(now));
}

/** Usage over a range of UTC days, by the dimensions asked and by model (for pricing). */
export function usageRollup(sql: SqlStorage | null, input: T.UsageRollupInput): RollupRow[] {
  return queryRollup(sql, parseRollupQuery(input));
}

export function usage(sql: SqlStorage | null, input: T.UsageInput): T.UsageDay[] {
  const now = input.now === undefined ? Date.now() : requireNow(input.now);
  return usageDays(sql, now, requireInt("days", input.days, 1, MAX_USAGE_DAYS));
}
