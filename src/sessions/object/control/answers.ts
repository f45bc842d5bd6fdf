/** The answers the session's controls share: the failures, and the mark for "the session as it stands". */
import type { SessionFailure, SessionResult, Session, SessionStatus } from "../../../session-config/types";
import type { CheckedClaim } from "../engine/slots";

export const SESSION_NOT_FOUND = { ok: false, reason: "session_not_found" } as const;
export const RUN_NOT_GOING = { ok: false, reason: "run_not_going" } as const;

/** A control's answer when it went through: the session as it stands once reconciled. */
export const SHOWN = Symbol("the session as it stands");

export type Failure = { ok: false } & SessionFailure;

/** What a control's body answers: a failure, a fixed answer, or `SHOWN`. */
export type Answer = SessionResult<Session> | typeof SHOWN;

export function wrongStatus(action: "cancel" | "pause" | "resume", status: SessionStatus): Failure {
  return { ok: false, reason: "wrong_status", action, status };
}

/** A claim's refusal as the caller answers it: a session erased meanwhile is not found. */
export function refusalOf<F>(claim: Extract<CheckedClaim<F>, { ok: false }>): F | typeof SESSION_NOT_FOUND {
  return claim.refusal === "gone" ? SESSION_NOT_FOUND : claim.refusal;
}
