/**
 * A session's ties to its parent and its children as `reconcile` keeps them: what is owed (a
 * report to the parent, a cancel to an orphaned child) is settled at the end of every control and
 * unit, and the alarm is set for what is due next (a retry, the next look at running children).
 */
import type { SessionEngine } from "../engine/engine";
import type { FamilyHooks } from "../engine/reconcile";
import { parentDueAt, parentOwed, tellParent } from "./child";
import { cancelOrphans, childrenDueAt, hasOrphans } from "./parent";

export function familyHooks(engine: SessionEngine): FamilyHooks {
  return {
    dueAt(now) {
      const times = [parentDueAt(engine, now), childrenDueAt(engine, now)].filter((time): time is number => time !== null);
      return times.length === 0 ? null : Math.min(...times);
    },
    settle() {
      const owed = parentOwed(engine);
      if (!owed && !hasOrphans(engine)) return false;
      return settleOwed(engine, owed);
    },
  };
}

/** Tells the parent what it is owed and cancels orphaned children; true when anything was sent. */
async function settleOwed(engine: SessionEngine, owed: boolean): Promise<boolean> {
  if (owed) await tellParent(engine);
  if (!engine.store.exists()) return owed;
  const before = engine.store.subagents().filter((row) => !row.cancel_sent).length;
  await cancelOrphans(engine);
  return owed || (engine.store.exists() && engine.store.subagents().filter((row) => !row.cancel_sent).length !== before);
}
