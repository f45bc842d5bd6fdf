/**
 * A tenant admin's change of a session's limits (`PATCH /v1/sessions/{id}`): each value at most the
 * tenant's, as at create, but a value may also be raised again up to it. Raising a budget the run
 * waits on in `waiting_budget` lets it go on (sessions/object/control/budget-wait.ts).
 */
import type { AuditContext } from "../audit/types";
import type { PartialLimits } from "../limits";
import { ApiError } from "../problems";
import type { Session } from "../session-config/types";
import type { Actor } from "./actor";
import { loadOwnedSession } from "./access";
import { resolveSessionLimits } from "./limits";

/** Limits a session only keeps a copy of (the tenant's run slots and daily budgets): changed in the tenant's limits, never on one session. */
const TENANT_WIDE = ["max_concurrent_runs", "max_tokens_per_day", "max_cost_usd_per_day", "max_tokens_per_day_per_subject"] as const;

export async function setSessionLimits(actor: Actor, sessionId: string, limits: PartialLimits, by: AuditContext): Promise<Session> {
  const tenantWide = TENANT_WIDE.filter((name) => limits[name] !== undefined);
  if (tenantWide.length > 0)
    throw new ApiError("validation_failed", undefined, {
      errors: tenantWide.map((name) => ({
        path: `body.limits.${name}`,
        message: "A tenant-wide limit: change it in the tenant's limits.",
      })),
    });
  const resolved = resolveSessionLimits(actor.limits, limits);
  if (!resolved.ok) throw new ApiError("validation_failed", undefined, { errors: resolved.errors });
  const { session, client } = await loadOwnedSession(actor.env, actor.principal, sessionId);
  // A sub-agent draws on its parent's budget: its session budgets go no higher than the share it holds (raise the parent instead).
  if (session.parent) {
    const share = resolveSessionLimits({ ...actor.limits, ...pickShare(session.limits) }, pickShare(limits), "parent's share");
    if (!share.ok) throw new ApiError("validation_failed", undefined, { errors: share.errors });
  }
  return client.setLimits(limits, by);
}

function pickShare(limits: PartialLimits): PartialLimits {
  const { max_tokens_per_session, max_cost_usd_per_session } = limits;
  return {
    ...(max_tokens_per_session === undefined ? {} : { max_tokens_per_session }),
    ...(max_cost_usd_per_session === undefined ? {} : { max_cost_usd_per_session }),
  };
}
