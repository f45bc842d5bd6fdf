/**
 * Setting a Durable Object's alarm without losing it: the one rule every object's alarm follows.
 *
 * Inside an alarm handler (and the constructor of the object it woke) `Date.now()` stands still
 * between I/O, so a handler that starts in the very millisecond its alarm was due, and asks for
 * "now" before any I/O, asks for exactly the running alarm's time. The runtime may then keep that
 * time in storage and never fire it (seen under `wrangler dev`: a session stays `running` with an
 * alarm in the past, until something else wakes the object). The runtime starts a handler no
 * earlier than its time, so an alarm is never set at or before `now`: one millisecond later
 * cannot be the running alarm's time, and is due within a millisecond anyway. An alarm found
 * already due (`current <= now`) is not trusted to fire either, and is set again.
 */
export class AlarmClock {
  constructor(private readonly storage: DurableObjectStorage) {}

  /**
   * Makes the alarm follow `target`, the time the object next has something due (`null`:
   * nothing), by `alarmChange`. `stands` is asked after the read of the alarm: an object whose
   * storage went meanwhile sets none.
   */
  async sync(target: number | null, stands: () => boolean = () => true): Promise<void> {
    const now = Date.now();
    const current = await this.storage.getAlarm();
    if (!stands()) return;
    const change = alarmChange(current, target, now);
    if (change.kind === "set") await this.storage.setAlarm(change.at);
    else if (change.kind === "delete") await this.storage.deleteAlarm();
  }

  /**
   * Sets the alarm for just after now without reading it first, so it is committed with the
   * write made in the same synchronous stretch. `alarmChange` gives the same time for a target
   * of now, short of the one alarm it would keep: one set for that same millisecond.
   */
  wakeWithWrite(): Promise<void> {
    const now = Date.now();
    return this.storage.setAlarm(safeAlarmTime(now, now));
  }
}

/** What to do with the alarm: leave it, set it for `at`, or delete it. */
export type AlarmChange = { kind: "keep" } | { kind: "set"; at: number } | { kind: "delete" };

/**
 * Pure: the one alarm-sync rule. Nothing due (`target` null) deletes the alarm; a target sets
 * it for `safeAlarmTime`, unless the alarm set is still to come and no later (`keepsAlarm`):
 * the earlier wake finds nothing due yet and syncs again.
 */
export function alarmChange(current: number | null, target: number | null, now: number): AlarmChange {
  if (target === null) return current === null ? { kind: "keep" } : { kind: "delete" };
  const at = safeAlarmTime(target, now);
  return keepsAlarm(current, at, now) ? { kind: "keep" } : { kind: "set", at };
}

/** Pure: `target` when it is after `now`, else one millisecond after `now`. */
export function safeAlarmTime(target: number, now: number): number {
  return target > now ? target : now + 1;
}

/**
 * Pure: whether the alarm set (`current`) can stay instead of one at `wanted`: it is set, still
 * to come, and no later than wanted. An alarm already due may be the one that runs now, or one
 * the runtime kept without firing, so it is replaced.
 */
export function keepsAlarm(current: number | null, wanted: number, now: number): boolean {
  return current !== null && current > now && current <= wanted;
}
