/** Erasing a session: what it still owes handed over first, then every byte it stored deleted. */
import { isRetentionErasable } from "../../../session-config/retention";
import { stillLive } from "../engine/gone";
import { report } from "../engine/reconcile";
import { ACTIVE_STATUSES, type SessionResult } from "../../../session-config/types";
import type { ControlHost } from "./host";

type EraseHost = Pick<ControlHost, "store" | "outbox" | "audit" | "reporter" | "cancelRun" | "eraseAll">;

/** Hand-offs an erase tries while other calls keep giving the session something to hand off. */
const MAX_ERASE_ROUNDS = 3;

/** Cancels whatever runs and deletes every byte the session stored (see `eraseSession`). */
export async function erase(engine: EraseHost): Promise<SessionResult<null>> {
  const erased = await eraseSession(engine);
  return erased.ok ? { ok: true, value: null } : erased;
}

/**
 * A run that is going ends as a cancel ends it (so `session.cancelled` is owed), and every owed
 * notification is handed to the tenant index before the storage that holds it goes; when the
 * index cannot be reached, the session is kept and the caller is asked to try again. A
 * notification the index refuses for good (a bug, logged on both sides) is dropped alone.
 *
 * `stands`, when given, is asked before the first hand-off and again after every await: once it
 * no longer holds (a retention erase of a session that a new message just woke), the session is
 * kept and the answer is `false`. Without it the erase cancels whatever runs, and answers `true`.
 */
async function eraseSession(engine: EraseHost, stands: (() => boolean) | null = null): Promise<SessionResult<boolean>> {
  // A call that came in during a hand-off may have started a run, or owed a notification, again.
  for (let round = 1; ; round++) {
    if (stands && !stands()) return { ok: true, value: false };
    if (ACTIVE_STATUSES.includes(engine.store.run().status)) engine.cancelRun();
    // What the run spent since its last report is counted by the index only from a report, and
    // erasing a session does not erase its usage: the last one goes first (notifications ride along).
    if (reportOwed(engine)) {
      const ack = await stillLive(engine.store, report(engine));
      if (stands && !stands()) return { ok: true, value: false };
      if (!ack) return { ok: false, reason: "unavailable", detail: "the session's usage could not be reported to its tenant yet" };
    }
    // Erased by a concurrent call meanwhile: the session is gone.
    const handed = await stillLive(engine.store, engine.outbox.handOff(true));
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
export function eraseIfExpired(engine: EraseHost, before: number): Promise<SessionResult<boolean>> {
  if (!Number.isFinite(before)) throw new TypeError("before must be a time");
  const expired = (): boolean => {
    const run = engine.store.run();
    return isRetentionErasable(run.status) && Date.parse(run.updated_at) < before;
  };
  return eraseSession(engine, expired);
}

/** The index has not heard the run's last change (a create whose admission is owed has no row to report to yet). */
function reportOwed(engine: Pick<ControlHost, "store">): boolean {
  const run = engine.store.run();
  return engine.store.admissionOwed() === undefined && run.reported_revision < run.revision;
}

/** Nothing of the session is still owed elsewhere: no run going, no notification unsent. */
function erasable(engine: Pick<ControlHost, "store">): boolean {
  return !ACTIVE_STATUSES.includes(engine.store.run().status) && engine.store.outboxSize() === 0;
}
