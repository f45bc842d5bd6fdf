/**
 * A session's effective limits: the tenant's, lowered where the session asks. A session can
 * never raise a limit: that would let any caller with sessions:write undo what the tenant's
 * admin or the platform set. Pure.
 */
import { LIMIT_NAMES, type Limits, type PartialLimits } from "../limits";
import type { FieldError } from "../problems";

export type ResolvedLimits = { ok: true; limits: Limits } | { ok: false; errors: FieldError[] };

/**
 * Every requested value must be at most the tenant's (or, for a session from an agent, the
 * agent's, themselves at most the tenant's). `max_tokens_per_day` is null for
 * "unlimited": any number lowers that, and null asked of a tenant with a cap would raise it.
 */
export function resolveSessionLimits(
  tenant: Limits,
  requested: PartialLimits | undefined,
  ceiling: "tenant's" | "agent's" | "parent's share" = "tenant's",
): ResolvedLimits {
  if (!requested) return { ok: true, limits: { ...tenant } };
  const errors: FieldError[] = [];
  const limits: Limits = { ...tenant };
  for (const name of LIMIT_NAMES) {
    const asked = requested[name];
    if (asked === undefined) continue;
    const allowed = tenant[name];
    if (raises(asked, allowed)) {
      errors.push({
        path: `body.limits.${name}`,
        message: `Must not exceed the ${ceiling} limit of ${allowed === null ? "unlimited" : allowed}.`,
      });
      continue;
    }
    // The per-name assignment keeps each value with its own type (only one name is nullable).
    (limits as Record<string, number | null>)[name] = asked;
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, limits };
}

function raises(asked: number | null, allowed: number | null): boolean {
  if (allowed === null) return false;
  return asked === null || asked > allowed;
}
