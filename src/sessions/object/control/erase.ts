/** Erasing a session: what it still owes handed over first, then every byte it stored deleted. */
import type { SessionEngine } from "../engine/engine";
import { ACTIVE_STATUSES, type SessionResult } from "../../types";
import { SESSION_NOT_FOUND } from "./answers";

/** Hand-offs an erase tries while other calls keep giving the session something to hand off. */
const MAX_ERASE_ROUNDS = 3;

export async function eraseSession(engine: SessionEngine): Promise<SessionResult<null>> {
  // A call that came in during a hand-off may have started a run, or owed a notification, again.
  for (let round = 1; ; round++) {
    if (ACTIVE_STATUSES.includes(engine.store.run().status)) engine.cancelRun();
    const handed = await engine.outbox.handOff(true);
    if (!engine.store.exists()) return SESSION_NOT_FOUND; // erased by a concurrent call meanwhile
    if (handed === "failed" || (round === MAX_ERASE_ROUNDS && !erasable(engine))) {
      return { ok: false, reason: "unavailable", detail: "the session's notifications could not be handed to its tenant yet" };
    }
    if (erasable(engine)) break;
  }
  // The entries of decisions made here go to the tenant's log before the storage that holds them.
  if (!(await engine.audit.flush())) return { ok: false, reason: "unavailable", detail: "the session's audit entries could not be handed to its tenant yet" };
  await engine.eraseAll();
  return { ok: true, value: null };
}

/** Nothing of the session is still owed elsewhere: no run going, no notification unsent. */
function erasable(engine: SessionEngine): boolean {
  return !ACTIVE_STATUSES.includes(engine.store.run().status) && engine.store.outboxSize() === 0;
}
