/**
 * A session's ties to its parent and its children as `reconcile` keeps them: a report owed to the
 * parent is settled at the end of every control and unit, a cancel owed to an orphaned child by
 * the alarm's reconcile only, and the alarm is set for what is due next (at once for an orphan, a
 * retry, the next look at running children).
 */
import type { FamilyHost } from "./host";
import type { FamilyHooks } from "../engine/reconcile";
import { parentDueAt, parentOwed, tellParent } from "./child";
import { cancelOrphans, childrenDueAt, hasOrphans } from "./parent";
import { isLive } from "../engine/gone";

export function familyHooks(engine: FamilyHost): FamilyHooks {
  return {
    dueAt(now) {
      const times = [parentDueAt(engine, now), childrenDueAt(engine, now)].filter((time): time is number => time !== null);
      return times.length === 0 ? null : Math.min(...times);
    },
    settle(fromAlarm) {
      const owed = parentOwed(engine);
      // Orphans are cancelled by the alarm's reconcile (due at once), never by a request's, even
      // one that comes while the alarm runs: each child cancels its own in turn, and a tree's
      // cancel request waited for every level of it (over 30 s for a few hundred sessions).
      const orphans = fromAlarm && hasOrphans(engine);
      if (!owed && !orphans) return false;
      return settleOwed(engine, owed, orphans);
    },
  };
}

/** Tells the parent what it is owed and cancels orphaned children; true when anything was sent. */
async function settleOwed(engine: FamilyHost, owed: boolean, orphans: boolean): Promise<boolean> {
  if (owed) await tellParent(engine);
  // The report's await may have let an erase in.
  if (!orphans || !isLive(engine.store)) return owed;
  return (await cancelOrphans(engine)) || owed;
}
