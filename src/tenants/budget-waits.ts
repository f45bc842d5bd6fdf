/**
 * Which sessions wait in `waiting_budget`, by the budget they wait on and whose it is (a creator, an
 * API key, or the tenant's ''), so that a change of that budget wakes exactly those sessions. Kept in
 * step with each session's reports (a row while it waits, none after), and with its removal.
 */
import { log } from "../log";
import { sessionStub } from "../objects";
import type { Limits } from "../limits";
import type { BudgetWait } from "../usage/budgets";
import type { ReportRow } from "./session-report";

/**
 * The most sessions one change wakes: each is one call to its object, made while the change's
 * request waits. Past it, those left go on at the next UTC midnight or the next change.
 */
export const MAX_BUDGET_WAKES = 500;

/** Whether a budget went up (null is no budget at all): only a raise may end a wait, so a lowering wakes no one. */
export function raised(before: number | null, after: number | null): boolean {
  return before !== null && (after === null || after > before);
}

/** The daily budgets of the tenant's limits a change raised, as the waits they may end. */
export function raisedDailyBudgets(before: Limits, after: Limits): BudgetWait[] {
  const waits: BudgetWait[] = [];
  if (raised(before.max_tokens_per_day, after.max_tokens_per_day)) waits.push("tenant_tokens");
  if (raised(before.max_cost_usd_per_day ?? null, after.max_cost_usd_per_day ?? null)) waits.push("tenant_cost");
  if (raised(before.max_tokens_per_day_per_subject ?? null, after.max_tokens_per_day_per_subject ?? null)) waits.push("subject_tokens");
  return waits;
}

/** Whose budget it is: the key's id, the creator, or '' for the tenant's and the session's own. */
function ownerOf(row: Pick<ReportRow, "api_key_id" | "created_by">, budget: BudgetWait): string {
  if (budget === "key_tokens") return row.api_key_id;
  if (budget === "subject_tokens") return row.created_by;
  return "";
}

/** After an applied report, inside its transaction: a waiting session is listed under its budget, any other is not. */
export function followBudgetWait(sql: SqlStorage, row: ReportRow): void {
  if (row.status !== "waiting_budget" || row.budget_wait === null) {
    forgetBudgetWait(sql, row.id);
    return;
  }
  sql.exec(
    `INSERT INTO budget_waits (session_id, budget, owner) VALUES (?, ?, ?)
     ON CONFLICT (session_id) DO UPDATE SET budget = excluded.budget, owner = excluded.owner`,
    row.id,
    row.budget_wait,
    ownerOf(row, row.budget_wait),
  );
}

export function forgetBudgetWait(sql: SqlStorage, sessionId: string): void {
  sql.exec(`DELETE FROM budget_waits WHERE session_id = ?`, sessionId);
}

/** The sessions waiting on one of `budgets` owned by `owner` ('' for the tenant's), oldest-listed first. */
export function sessionsWaitingOn(sql: SqlStorage, budgets: readonly BudgetWait[], owner: string | null): string[] {
  const marks = budgets.map(() => "?").join(", ");
  const ownerClause = owner === null ? "" : " AND owner = ?";
  return sql
    .exec<{ session_id: string }>(
      `SELECT session_id FROM budget_waits WHERE budget IN (${marks})${ownerClause} ORDER BY rowid LIMIT ?`,
      ...budgets,
      ...(owner === null ? [] : [owner]),
      MAX_BUDGET_WAKES,
    )
    .toArray()
    .map((row) => row.session_id);
}

/**
 * Tells each session its budget may have been raised; each checks every budget again as it goes on
 * (and waits again if one is still reached). A session that cannot be told now goes on at the next
 * change or, for a daily budget, at the next UTC midnight.
 */
export async function wakeBudgetWaiters(
  env: Cloudflare.Env,
  tenantId: string,
  ids: readonly string[],
  limits: Limits | null,
): Promise<void> {
  await Promise.all(
    ids.map((id) =>
      sessionStub(env, tenantId, id)
        .budgetRaised(limits)
        .catch((error: unknown) => log("warn", "budget_wake_undelivered", { tenant_id: tenantId, session_id: id, error: String(error) })),
    ),
  );
}
