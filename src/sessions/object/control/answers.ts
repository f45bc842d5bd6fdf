/** The answers the session's controls share: the failures, and the mark for "the session as it stands". */
import type { SessionFailure, SessionResult, Session, SessionStatus } from "../../../session-config/types";

/** The session is gone: erased (maybe while the control awaited), or never created. */
export const SESSION_GONE = { ok: false, reason: "session_not_found" } as const;
/** `SESSION_GONE`, as the answer a control gives once the engine found the session gone. */
export const gone = (): typeof SESSION_GONE => SESSION_GONE;
export const RUN_NOT_GOING = { ok: false, reason: "run_not_going" } as const;

/** A control's answer when it went through: the session as it stands once reconciled. */
export const SHOWN = Symbol("the session as it stands");

export type Failure = { ok: false } & SessionFailure;

/** What a control's body answers: a failure, a fixed answer, or `SHOWN`. */
export type Answer = SessionResult<Session> | typeof SHOWN;

export function wrongStatus(action: "cancel" | "pause" | "resume", status: SessionStatus): Failure {
  return { ok: false, reason: "wrong_status", action, status };
}
