/**
 * End users' token revocation: one cut-off per subject (epoch ms), read with the admission the
 * gateway asks for anyway, so checking it costs no second round trip (see `admitRequest`).
 */
import type { AuditContext } from "../../audit/types";
import { requireNow, requireString } from "../../shared/validate";
import type { IndexHost } from "./host";

/** Tokens of `subject` issued at or before `now` are refused from now on; a cut-off never moves back. Answers the cut-off. */
export function revokeEndUserTokens(host: IndexHost, subject: string, now: number, by?: AuditContext): number {
  const name = requireString("subject", subject);
  const at = requireNow(now);
  return host.transaction(() => {
    host.sql.exec(
      `INSERT INTO end_user_revocations (subject, revoked_before) VALUES (?, ?)
       ON CONFLICT (subject) DO UPDATE SET revoked_before = MAX(revoked_before, excluded.revoked_before)`,
      name,
      at,
    );
    const cutOff = host.sql
      .exec<{ revoked_before: number }>(`SELECT revoked_before FROM end_user_revocations WHERE subject = ?`, name)
      .one().revoked_before;
    host.audit(by, {
      action: "end_user.tokens_revoked",
      target: { type: "end_user", id: name },
      details: { revoked_before: new Date(cutOff).toISOString() },
    });
    return cutOff;
  });
}

/** The end user's cut-off (epoch ms), if it has one. */
export function revokedBefore(host: IndexHost, subject: string): number | null {
  const row = host.sql
    .exec<{ revoked_before: number }>(`SELECT revoked_before FROM end_user_revocations WHERE subject = ?`, subject)
    .toArray()[0];
  return row?.revoked_before ?? null;
}
