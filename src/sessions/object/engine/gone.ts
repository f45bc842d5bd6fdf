/**
 * The one existence check. A session may be erased at any await of a control or a unit: what
 * follows an await reads the session through `stillLive`, which raises `SessionGone` once storage
 * holds no session, and the control's wrapper (or the reconcile, or the unit runner) catches it
 * once, so no feature checks `exists()` by hand.
 */

/** The session was erased (or never created): what a control or a unit was doing no longer applies. */
export class SessionGone extends Error {
  constructor() {
    super("the session is gone (erased, or never created)");
    this.name = "SessionGone";
  }
}

/** What the check reads: whether storage holds a session. */
export interface Existence {
  exists(): boolean;
}

/** Whether storage still holds the session: the only reader of `exists()` outside the store. */
export function isLive(store: Existence): boolean {
  return store.exists();
}

/** Raises `SessionGone` when storage holds no session. */
export function requireLive(store: Existence): void {
  if (!isLive(store)) throw new SessionGone();
}

/** `fn`, run only while storage holds the session (else `SessionGone`). */
export function whileLive<T>(store: Existence, fn: () => T): () => T {
  return () => {
    requireLive(store);
    return fn();
  };
}

/** Awaits `pending`, then raises `SessionGone` if the session was erased meanwhile. */
export async function stillLive<T>(store: Existence, pending: Promise<T>): Promise<T> {
  const value = await pending;
  requireLive(store);
  return value;
}

/** Runs `fn`; a `SessionGone` it raises is answered `gone()`, anything else goes on up. */
export async function unlessGone<T>(fn: () => T | Promise<T>, gone: () => T): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof SessionGone) return gone();
    throw error;
  }
}
