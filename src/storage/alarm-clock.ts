/**
 * Setting a Durable Object's alarm without losing it.
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

  /** The time to set for an alarm wanted at `target` (see `safeAlarmTime`). */
  timeFor(target: number, now = Date.now()): number {
    return safeAlarmTime(target, now);
  }

  /** Sets the alarm for `target`, or for just after now. */
  set(target: number): Promise<void> {
    return this.storage.setAlarm(this.timeFor(target));
  }

  /**
   * Sets the alarm for `target` (made safe) unless an alarm still to come at or before that time
   * is set already; one already due is set again (see above).
   */
  async setNoLaterThan(target: number): Promise<void> {
    const now = Date.now();
    const wanted = this.timeFor(target, now);
    const current = await this.storage.getAlarm();
    if (keepsAlarm(current, wanted, now)) return;
    await this.storage.setAlarm(wanted);
  }
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
