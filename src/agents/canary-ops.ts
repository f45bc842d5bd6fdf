/**
 * The agent store's canary changes, each run inside the store's transaction: an alias set with or
 * without a canary, a canary promoted, and a canary run counted (and the canary rolled back when
 * its rule is crossed, with the audit entry and the webhook owed in the same transaction).
 */
import type { AuditChange } from "../audit/types";
import { newEventId } from "../notifications/ids";
import type { AgentNotification, NotificationBatch } from "../notifications/types";
import { toIso } from "../shared/validate";
import { type CanarySpec, failureRate, judgeRun, meanScore, rollbackReason } from "./canary";
import { countRun, deleteCanary, getCanary, putCanary, type StoredCanary } from "./canary-store";
import * as store from "./store";
import type { AgentResult, ResolvedAgent } from "./types";
import { requireInt } from "../shared/validate";

/** What the canary changes need of the store object, inside its transaction. */
export interface CanaryHost {
  readonly sql: SqlStorage;
  readonly tenantId: string;
  record(change: AuditChange, now: number): void;
  /** Keeps a notification batch owed to the tenant's index, handed over after the transaction. */
  owe(batch: NotificationBatch, now: number): void;
}

/** Inside `setAlias`'s transaction, before the alias moves: why this canary cannot be set, or null. */
export function canaryProblem(host: CanaryHost, agentId: string, version: number, canary: CanarySpec | null): AgentResult<null> | null {
  if (canary === null) return null;
  if (canary.version === version)
    return {
      ok: false,
      reason: "canary_invalid",
      path: "body.canary.version",
      message: `Must differ from the alias's version (${version}): a canary tries another version.`,
    };
  if (!store.getVersionRow(host.sql, agentId, canary.version))
    return { ok: false, reason: "canary_invalid", path: "body.canary.version", message: `The agent has no version ${canary.version}.` };
  return null;
}

/** Sets or clears the alias's canary (a PUT without one removes it); the canary's part of the audit entry's details. */
export function applyCanary(
  host: CanaryHost,
  agentId: string,
  alias: string,
  canary: CanarySpec | null,
  now: number,
): { canary: { version: number; percent: number } | null; previous_canary_version: number | null; changed: boolean } {
  const before = getCanary(host.sql, agentId, alias);
  if (canary === null) deleteCanary(host.sql, agentId, alias);
  else putCanary(host.sql, agentId, alias, canary, now);
  const after = getCanary(host.sql, agentId, alias);
  const changed =
    (before === null) !== (after === null) ||
    (before !== null &&
      after !== null &&
      (before.version !== after.version ||
        before.percent !== after.percent ||
        JSON.stringify(before.rollback) !== JSON.stringify(after.rollback)));
  return {
    canary: after === null ? null : { version: after.version, percent: after.percent },
    previous_canary_version: before?.version ?? null,
    changed,
  };
}

/**
 * The version an alias gives a new session: its canary's when the session's bucket is below the
 * canary's percent. Without a bucket (a reference only checked, never run) the alias's own.
 */
export function aliasTarget(
  sql: SqlStorage,
  agentId: string,
  alias: string,
  bucket: number | undefined,
): { version: number; canary: ResolvedAgent["canary"] } | null {
  const version = store.aliasVersion(sql, agentId, alias);
  if (version === null) return null;
  const live = getCanary(sql, agentId, alias);
  if (live === null) return { version, canary: undefined };
  const arm = bucket !== undefined && requireInt("selector.bucket", bucket, 0, 99) < live.percent;
  return { version: arm ? live.version : version, canary: { alias, arm } };
}

/** The alias moves to its canary's version and the canary goes; refused when it carries none (rolled back meanwhile), or one of another version than `expected`. */
export function promote(host: CanaryHost, agentId: string, alias: string, now: number, expected: number | null = null): AgentResult<null> {
  const row = store.getAgent(host.sql, agentId);
  if (!row) return { ok: false, reason: "agent_not_found" };
  if (row.archived_at !== null) return { ok: false, reason: "archived" };
  const previous = store.aliasVersion(host.sql, agentId, alias);
  if (previous === null) return { ok: false, reason: "alias_not_found", alias };
  const canary = getCanary(host.sql, agentId, alias);
  if (canary === null) return { ok: false, reason: "no_canary", alias };
  if (expected !== null && canary.version !== expected)
    return { ok: false, reason: "canary_changed", alias, version: canary.version, expected };
  store.setAlias(host.sql, agentId, alias, canary.version, now);
  deleteCanary(host.sql, agentId, alias);
  store.touchAgent(host.sql, agentId, now);
  host.record(
    {
      action: "agent.canary_promoted",
      target: { type: "agent", id: agentId },
      details: { alias, version: canary.version, previous_version: previous, ...numbers(canary) },
    },
    now,
  );
  return { ok: true, value: null };
}

export type CountResult = { counted: boolean; rolled_back: boolean };

/**
 * Counts one scored canary run, when the alias still carries a canary of that version started no
 * later than the session (a run of an earlier canary of the same version counts for nothing), and
 * rolls the canary back at once when its rule is crossed.
 */
export function countCanaryRun(
  host: CanaryHost,
  agentId: string,
  alias: string,
  version: number,
  run: { session_id: string; run: number; failed: boolean; scores: { score: number | null; reason: string }[]; session_created_at: number },
  now: number,
): CountResult {
  const canary = getCanary(host.sql, agentId, alias);
  if (canary === null || canary.version !== version || canary.started_at > run.session_created_at)
    return { counted: false, rolled_back: false };
  const judged = judgeRun(run, canary.rollback);
  if (!countRun(host.sql, agentId, alias, { session_id: run.session_id, run: run.run, ...judged }))
    return { counted: false, rolled_back: false };
  const counts = getCanary(host.sql, agentId, alias)!;
  const reason = rollbackReason(counts, counts.rollback);
  if (reason === null) return { counted: true, rolled_back: false };
  deleteCanary(host.sql, agentId, alias);
  store.touchAgent(host.sql, agentId, now);
  const aliasVersion = store.aliasVersion(host.sql, agentId, alias) ?? 0;
  const figures = numbers(counts);
  host.record(
    {
      action: "agent.canary_rolled_back",
      target: { type: "agent", id: agentId },
      details: { alias, version: aliasVersion, canary_version: counts.version, reason, ...figures, ...ruleOf(counts) },
    },
    now,
  );
  const notification: AgentNotification = {
    id: newEventId(),
    type: "agent.canary_rolled_back",
    created_at: toIso(now),
    tenant_id: host.tenantId,
    agent: { id: agentId, alias, version: aliasVersion, canary_version: counts.version, reason, ...figures, ...ruleOf(counts) },
  };
  host.owe({ session_id: agentId, notify_url: null, notifications: [notification] }, now);
  return { counted: true, rolled_back: true };
}

function numbers(canary: StoredCanary): { runs: number; failures: number; failure_rate: number | null; mean_score: number | null } {
  return { runs: canary.runs, failures: canary.failures, failure_rate: failureRate(canary), mean_score: meanScore(canary) };
}

function ruleOf(canary: StoredCanary): { min_runs: number; min_score: number | null; max_failure_rate: number | null } {
  return {
    min_runs: canary.rollback?.min_runs ?? 0,
    min_score: canary.rollback?.min_score ?? null,
    max_failure_rate: canary.rollback?.max_failure_rate ?? null,
  };
}
