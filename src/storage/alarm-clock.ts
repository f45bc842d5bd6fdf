/**
 * Setting a Durable Object's alarm while its alarm handler runs, without losing it.
 *
 * Inside a handler `Date.now()` stands still between I/O, so a handler that starts in the very
 * millisecond its alarm was due, and asks for "now" before any I/O, asks for exactly the running
 * alarm's time. The runtime may then keep that time in storage and never fire it again (seen
 * under `wrangler dev`: a session stays `running` with an alarm in the past, until something
 * else wakes the object). The runtime starts a handler no earlier than its time, so a handler
 * that never sets the alarm at or before the moment it started cannot hit the running alarm's
 * time; one millisecond after the start is already due when the handler returns.
 */
export class AlarmClock {
  /** When the running alarm handler started (epoch ms); null while none runs. */
  #handlerStartedAt: number | null = null;

  constructor(private readonly storage: DurableObjectStorage) {}

  /** Runs an alarm handler; while it runs, every time asked of this clock is a safe one. */
  async handle<T>(handler: () => Promise<T>): Promise<T> {
    this.#handlerStartedAt = Date.now();
    try {
      return await handler();
    } finally {
      this.#handlerStartedAt = null;
    }
  }

  /** The time to set for an alarm wanted at `target` (see `safeAlarmTime`). */
  timeFor(target: number): number {
    return safeAlarmTime(target, this.#handlerStartedAt);
  }

  /** Sets the alarm for `target`, or just after the running handler's start. */
  set(target: number): Promise<void> {
    return this.storage.setAlarm(this.timeFor(target));
  }

  /** Sets the alarm for `target` (made safe) unless one at or before that time is set already. */
  async setNoLaterThan(target: number): Promise<void> {
    const wanted = this.timeFor(target);
    const current = await this.storage.getAlarm();
    if (current === null || current > wanted) await this.storage.setAlarm(wanted);
  }
}

/**
 * Pure: `target`, unless an alarm handler that started at `handlerStartedAt` is running and
 * `target` is not after that start (it could be the running alarm's own time); then one
 * millisecond after the start.
 */
export function safeAlarmTime(target: number, handlerStartedAt: number | null): number {
  return handlerStartedAt !== null && target <= handlerStartedAt ? handlerStartedAt + 1 : target;
}
