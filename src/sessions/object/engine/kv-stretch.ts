/**
 * The session object's key-value reads, kept for one synchronous stretch of JavaScript. A unit reads its
 * run state many times between two awaits, and each read used to deserialize the stored value
 * again; now the first read of a stretch does, and the rest share its result.
 *
 * Why this is safe without any invalidation by callers: nothing else runs inside a synchronous
 * stretch, so no other request, alarm or test can write storage there; the cache is dropped by
 * a microtask queued with its first entry, which runs before the continuation of any await.
 * After every await (a model call, an RPC, an alarm's start) the next read goes to storage again,
 * so a unit that resumes sees every write made meanwhile, however it was made; the generation
 * check (the engine's `isCurrent`) reads the stored run. Writes made here are kept as written; a
 * transaction that throws (and so rolls back) must call `forget()`.
 *
 * A key the owner names as written only through this cache (`kept`) is kept past the stretch,
 * until `forget()`: whatever this cache last read or wrote for it is what storage holds, however
 * many awaits later. The session object keeps its settings (the largest value a unit reads: the
 * system prompt, the tools) and its notification outbox so; the run state is written behind the
 * object by tests of the generation rule, and stays per stretch.
 */

/** What `get` remembered for a key that holds nothing. */
const ABSENT = Symbol("absent");

export class KvStretchCache {
  readonly #values = new Map<string, unknown>();
  #clearQueued = false;
  /** Inside `batch`: the keys written so far, each stored once when the batch ends. */
  #staged: Map<string, unknown> | null = null;

  /** `kept`: the keys nothing writes but this cache, kept until `forget()` rather than per stretch. */
  constructor(
    private readonly kv: SyncKvStorage,
    private readonly kept: ReadonlySet<string> = new Set(),
  ) {}

  /** The stored value, read from storage once per stretch (a kept key: once until `forget`). Callers must not change it. */
  get<T>(key: string): T | undefined {
    const known = this.#values.get(key);
    if (known !== undefined) return known === ABSENT ? undefined : (known as T);
    const value = this.kv.get<T>(key);
    this.#remember(key, value);
    return value;
  }

  put<T>(key: string, value: T): void {
    if (this.#staged) this.#staged.set(key, value);
    else this.kv.put(key, value);
    this.#remember(key, value);
  }

  delete(key: string): void {
    if (this.#staged) this.#staged.set(key, undefined);
    else this.kv.delete(key);
    this.#remember(key, undefined);
  }

  /**
   * Runs `fn` (synchronous, inside the caller's storage transaction) with its writes staged: a
   * key written several times is stored once, with its last value, before `fn`'s transaction
   * commits. A unit changes the run state several times in one commit; each put is a row written
   * (and billed), the last one is the only one anybody can read. Reads inside see the staged
   * values. Nested calls join the outer batch.
   */
  batch<T>(fn: () => T): T {
    if (this.#staged) return fn();
    const staged = new Map<string, unknown>();
    this.#staged = staged;
    try {
      const result = fn();
      this.#staged = null;
      for (const [key, value] of staged) {
        if (value === undefined) this.kv.delete(key);
        else this.kv.put(key, value);
      }
      return result;
    } catch (err) {
      // The transaction rolls back: nothing staged was stored, and nothing remembered holds.
      this.#values.clear();
      throw err;
    } finally {
      this.#staged = null;
    }
  }

  /** Drops every remembered value: storage changed behind the cache, or a transaction rolled back. */
  forget(): void {
    this.#values.clear();
  }

  #remember(key: string, value: unknown): void {
    this.#values.set(key, value === undefined ? ABSENT : value);
    if (this.#clearQueued || this.kept.has(key)) return;
    this.#clearQueued = true;
    queueMicrotask(() => {
      this.#clearQueued = false;
      for (const remembered of this.#values.keys()) if (!this.kept.has(remembered)) this.#values.delete(remembered);
    });
  }
}
