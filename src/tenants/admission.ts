/**
 * The per-request gate: a suspended tenant is refused outright, then the request is counted
 * against `requests_per_minute`. Pure apart from the in-memory limiter it is given.
 */
import type { ConfigState } from "./tenant-config";
import type { RateLimiter } from "./rate-limit";
import type { Admission } from "./types";

/** The window that covers every request of the tenant. */
const TENANT_WINDOW = "tenant";

/**
 * `requests_per_minute` is the tenant's total. Each bucket (API key or JWT subject) is also
 * counted with the same number, so that the per-principal window exists and can be lowered on
 * its own later; with equal numbers the tenant window is the one that binds today.
 */
export function admit(config: ConfigState, limiter: RateLimiter, bucket: string, now: number): Admission {
  if (config.suspended) return { ok: false, code: "suspended" };
  const check = limiter.take([TENANT_WINDOW, `bucket:${bucket}`], config.limits.requests_per_minute, now);
  if (!check.ok) return { ok: false, code: "rate_limited", retryAfterSeconds: check.retryAfterSeconds };
  return { ok: true, limits: config.limits, suspended: false, settings: config.settings, ...(config.models !== null ? { models: config.models } : {}) };
}
