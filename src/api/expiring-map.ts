/**
 * A small map of isolate memory whose entries expire and whose size is bounded: the oldest
 * entry makes room for a new one. For short-lived notes that must never grow with an
 * attacker's input (addresses, key ids). Pure: `now` (epoch milliseconds) is passed in.
 */
export class ExpiringMap<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    readonly maxEntries: number,
    readonly ttlMs: number,
  ) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError("ExpiringMap: maxEntries must be a positive integer");
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string, now: number): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (now >= entry.expiresAt) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  has(key: string, now: number): boolean {
    return this.get(key, now) !== undefined;
  }

  /** Stores `value` until `now + ttlMs`, or until `expiresAt` when given. */
  set(key: string, value: V, now: number, expiresAt: number = now + this.ttlMs): void {
    // Deleting first moves the key to the newest end, so eviction takes the oldest write.
    this.#entries.delete(key);
    while (this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expiresAt });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}
