/** Erasing a session: what it still owes handed over first, then every byte it stored deleted. */
import type { SessionEngine } from "../engine/engine";
import { isRetentionErasable } from "../../../tenants/retention";
import { ACTIVE_STATUSES, type SessionResult } from "../../types";
import { SESSION_NOT_FOUND } from "./answers";

/** Hand-offs an erase tries while other calls keep giving the session something to hand off. */
const MAX_ERASE_ROUNDS = 3;

/**
 * `stands`, when given, is asked before the first hand-off and again after every await: once it
 * no longer holds (a retention erase of a session that a new message just woke), the session is
 * kept and the answer is `false`. Without it the erase cancels whatever runs, and answers `true`.
 */
export async function eraseSession(engine: SessionEngine, stands: (() => boolean) | null = null): Promise<SessionResult<boolean>> {
  // A call that came in during a hand-off may have started a run, or owed a notification, again.
  for (let round = 1; ; round++) {
    if (stands && !stands()) return { ok: true, value: false };
    if (ACTIVE_STATUSES.includes(engine.store.run().status)) engine.cancelRun();
    const handed = await engine.outbox.handOff(true);
    if (!engine.store.exists()) return SESSION_NOT_FOUND; // erased by a concurrent call meanwhile
    if (stands && !stands()) return { ok: true, value: false };
    if (handed === "failed" || (round === MAX_ERASE_ROUNDS && !erasable(engine))) {
      return { ok: false, reason: "unavailable", detail: "the session's notifications could not be handed to its tenant yet" };
    }
    if (erasable(engine)) break;
  }
  // The entries of decisions made here go to the tenant's log before the storage that holds them.
  if (!(await engine.audit.flush()))
    return { ok: false, reason: "unavailable", detail: "the session's audit entries could not be handed to its tenant yet" };
  await engine.eraseAll();
  return { ok: true, value: true };
}

/**
 * The retention sweep's erase: only while nothing runs or waits (`isRetentionErasable`) and the
 * last change is before `before` (epoch ms). `false`: the session is kept (it changed since the
 * index saw it, or it is busy); its report then tells the index.
 */
export function eraseIfExpired(engine: SessionEngine, before: number): Promise<SessionResult<boolean>> {
  const expired = (): boolean => {
    const run = engine.store.run();
    return isRetentionErasable(run.status) && Date.parse(run.updated_at) < before;
  };
  return eraseSession(engine, expired);
}

/** Nothing of the session is still owed elsewhere: no run going, no notification unsent. */
function erasable(engine: SessionEngine): boolean {
  return !ACTIVE_STATUSES.includes(engine.store.run().status) && engine.store.outboxSize() === 0;
}
