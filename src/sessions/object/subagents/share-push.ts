/**
 * A family's shares kept current: when a parent's budget changes or one of its children ends, each
 * child still open is asked how much it spent, and its session budgets are set to that spend plus
 * an even split of what the family has left (budget-share.ts), so a raise reaches the children
 * that wait and a finished child's unused share goes to the others.
 */
import { log } from "../../../log";
import { sessionStub } from "../../../objects";
import { totalTokens } from "../../../session-config/types";
import { budgetCostUsd } from "../../../models/prices";
import type { Config } from "../../../config";
import type { PartialLimits } from "../../../limits";
import type { SessionRpc } from "../rpc";
import type { SessionStore, StoredSession, SubagentRow } from "../store/store";
import { sumUsage } from "../store/subagents";
import { type ChildBudget, reshare } from "./budget-share";
import type { FamilyHost } from "./host";
import { liveChildren } from "./parent";

export type ShareHost = FamilyHost & { readonly config: Pick<Config, "prices"> };

/** Asks each open child for its spend, then pushes each its new share. Failures are logged: the alarm's look at the children retries nothing, so a child not reached keeps its old share. */
export async function pushFamilyShares(host: ShareHost): Promise<void> {
  const session = host.requireSession();
  const rows = liveChildren(host);
  if (rows.length === 0) return;
  await Promise.all(rows.map((row) => refresh(host, row)));
  const fresh = liveChildren(host);
  const family = sumUsage(host.store.run().usage, host.store.descendantUsage());
  const openAgentCalls = host.store
    .openToolCalls()
    .filter((open) => session.tools.some((t) => t.type === "agent" && t.name === open.name)).length;
  const spent = { tokens: totalTokens(family), costUsd: budgetCostUsd(host.config.prices, session.model, family) };
  await Promise.all(
    fresh.map((row) => {
      const own = { tokens: totalTokens(row.usage), costUsd: budgetCostUsd(host.config.prices, session.model, row.usage) };
      return push(host, row, reshare(session.limits, spent, own, Math.max(openAgentCalls, fresh.length)));
    }),
  );
}

/** The batch's agent calls that have no result yet: the ways what the family has left is split. */
export function unfinishedAgentCalls(store: Pick<SessionStore, "openToolCalls">, session: StoredSession): number {
  return store
    .openToolCalls()
    .filter(
      (open) => open.status !== "done" && open.status !== "error" && session.tools.some((t) => t.type === "agent" && t.name === open.name),
    ).length;
}

async function refresh(host: ShareHost, row: SubagentRow): Promise<void> {
  try {
    const answer = await child(host, row).parentReport();
    if (answer.ok) host.transaction(() => host.store.recordChildState(row.tool_call_id, answer.value));
  } catch (error) {
    log("warn", "child_spend_unknown", { session_id: host.session()?.id, child_id: row.session_id, error: String(error) });
  }
}

async function push(host: ShareHost, row: SubagentRow, share: ChildBudget): Promise<void> {
  const limits: PartialLimits = { max_tokens_per_session: share.max_tokens_per_session };
  if (share.max_cost_usd_per_session !== null && share.max_cost_usd_per_session !== undefined)
    limits.max_cost_usd_per_session = share.max_cost_usd_per_session;
  try {
    await child(host, row).setLimits(limits);
  } catch (error) {
    log("warn", "child_share_not_set", { session_id: host.session()?.id, child_id: row.session_id, error: String(error) });
  }
}

function child(host: ShareHost, row: SubagentRow): SessionRpc {
  return sessionStub(host.env, host.requireSession().tenant_id, row.session_id);
}
