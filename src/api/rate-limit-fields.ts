/**
 * The rate-limit state of an admitted request as the `RateLimit-Policy` and `RateLimit` header
 * fields of the IETF draft (draft-ietf-httpapi-ratelimit-headers, structured-field form):
 * every window the request was counted in as a policy, and the one closest to running out as
 * the service limit. Pure.
 */
import type { RateReport } from "../tenants/types";

export const RATE_LIMIT_POLICY_HEADER = "RateLimit-Policy";
export const RATE_LIMIT_HEADER = "RateLimit";

/** A structured-field String (RFC 9651 §3.3.3): the policy names are plain words, escaped anyway. */
function sfString(value: string): string {
  return `"${value.replace(/[\\"]/g, "\\$&")}"`;
}

/** `RateLimit-Policy: "tenant";q=600;w=60, "caller";q=300;w=60` and `RateLimit: "caller";r=42;t=17`. */
export function rateLimitFields(report: RateReport): Record<string, string> {
  const { current } = report;
  return {
    [RATE_LIMIT_POLICY_HEADER]: report.policies
      .map((policy) => `${sfString(policy.name)};q=${policy.quota};w=${policy.windowSeconds}`)
      .join(", "),
    [RATE_LIMIT_HEADER]: `${sfString(current.name)};r=${current.remaining};t=${current.resetSeconds}`,
  };
}
