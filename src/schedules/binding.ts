/**
 * Whom a schedule is bound to: the principal whose standing each firing checks, so a schedule
 * never acts on authority that has since ended. Pure: no I/O, no clock but the `now` passed in.
 *
 * - Created with an API key (or a token exchanged from one): bound to that key. It stops when
 *   the key is revoked or expires (`keyStandingProblem`, through `keyProblem` in fire.ts).
 * - Created with a JWT holding `tenant:admin`: bound to the tenant, owned by its admins. It fires
 *   while the tenant is not suspended; any tenant admin can pause or delete it.
 * - Created with any other JWT: bound to its subject only as long as the token lived. The
 *   platform cannot learn that a token's subject lost its rights (an identity provider's subject
 *   cannot be revoked here), so the schedule expires with the token's `exp`.
 */
import { hasScope, type Principal } from "../auth/principal";
import type { DisabledReason, ScheduleCreator } from "./types";

export function scheduleCreator(principal: Principal, now: number): ScheduleCreator {
  const keyId = principal.keyId ?? null;
  const ownedByTenant = keyId === null && hasScope(principal, "tenant:admin");
  return {
    subject: principal.subject,
    scopes: [...principal.scopes],
    via: principal.via,
    key_id: keyId,
    // A JWT always has an `exp` (jwt.ts refuses one without); were it missing, the schedule binds to nothing and so expires at once.
    expires_at: keyId !== null || ownedByTenant ? null : (principal.expiresAt ?? now),
  };
}

/** Pure: whether a schedule bound to its creator's token has outlived it at `now`. */
export function creatorExpired(creator: Pick<ScheduleCreator, "expires_at">, now: number): boolean {
  return creator.expires_at !== null && now >= creator.expires_at;
}

/** What a refused firing records when the schedule's principal no longer stands. */
export function disabledMessage(reason: DisabledReason): string {
  switch (reason) {
    case "api_key_revoked":
      return "The API key this schedule is bound to was revoked; the schedule is disabled.";
    case "api_key_expired":
      return "The API key this schedule is bound to expired; the schedule is disabled.";
    case "creator_expired":
      return "The token that created this schedule expired, and the schedule with it; create it with an API key, or as a tenant admin, to outlive a token.";
  }
}
