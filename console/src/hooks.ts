/**
 * The console's data hooks: a read kept fresh by conditional polling (a 304 costs no body and
 * no redraw), paused while the tab is hidden; and an action a button runs, with its pending
 * state and its error.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { type Conditional, describeError } from "./api";

export interface Polled<T> {
  data: T | null;
  /** The last read failed; `data` still holds the last good answer, if any. */
  error: string | null;
  /** What the last read threw, for views that tell a 404 from other failures. */
  failure: unknown;
  loading: boolean;
  /** Reads again now (after an action the view knows changed something). */
  refresh(): void;
}

interface PollState<T> {
  key: string;
  data: T | null;
  error: string | null;
  failure: unknown;
  loading: boolean;
}

/**
 * Reads with `load(etag)` at once and then every `intervalMs` (never while the tab is hidden;
 * at once when it shows again), starting over when `key` changes. `intervalMs` null: read once,
 * and again on `refresh`.
 */
export function usePoll<T>(key: string, load: (etag: string | null) => Promise<Conditional<T>>, intervalMs: number | null): Polled<T> {
  const [state, setState] = useState<PollState<T>>({ key, data: null, error: null, failure: null, loading: true });
  const loadRef = useRef(load);
  loadRef.current = load;
  const wake = useRef<() => void>(() => undefined);

  useEffect(() => {
    let cancelled = false;
    let etag: string | null = null;
    // Reads without a tag are compared by content, so an unchanged answer redraws nothing either.
    let lastJson: string | null = null;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let inFlight = false;
    let again = false;
    // A new key starts over; a new interval keeps what the view shows.
    setState((previous) => (previous.key === key ? previous : { key, data: null, error: null, failure: null, loading: true }));

    const read = async () => {
      if (cancelled) return;
      if (inFlight) {
        again = true;
        return;
      }
      inFlight = true;
      if (timer !== null) clearTimeout(timer);
      try {
        const answer = await loadRef.current(etag);
        if (cancelled) return;
        const json = answer.changed && answer.etag === null ? JSON.stringify(answer.data) : null;
        if (answer.changed && (json === null || json !== lastJson)) {
          etag = answer.etag;
          lastJson = json;
          setState({ key, data: answer.data, error: null, failure: null, loading: false });
        } else {
          setState((previous) =>
            previous.error === null && !previous.loading ? previous : { ...previous, error: null, failure: null, loading: false },
          );
        }
      } catch (error) {
        if (cancelled) return;
        setState((previous) => ({ ...previous, error: describeError(error), failure: error, loading: false }));
      } finally {
        inFlight = false;
      }
      if (again) {
        again = false;
        return read();
      }
      schedule();
    };
    const schedule = () => {
      if (cancelled || intervalMs === null || document.hidden) return;
      timer = setTimeout(() => void read(), intervalMs);
    };
    const onVisibility = () => {
      if (!document.hidden) void read();
      else if (timer !== null) clearTimeout(timer);
    };
    wake.current = () => void read();
    document.addEventListener("visibilitychange", onVisibility);
    void read();
    return () => {
      cancelled = true;
      if (timer !== null) clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisibility);
    };
  }, [key, intervalMs]);

  const refresh = useCallback(() => wake.current(), []);
  // While a new key's first read is on its way, the previous key's data is not shown.
  const current = state.key === key ? state : { data: null, error: null, failure: null, loading: true };
  return { data: current.data, error: current.error, failure: current.failure, loading: current.loading, refresh };
}

/** A one-shot read as a conditional one, for `usePoll` with reads that have no tag. */
export async function unconditional<T>(read: Promise<T>): Promise<Conditional<T>> {
  return { changed: true, data: await read, etag: null };
}

export interface Action {
  pending: boolean;
  error: string | null;
  /** Runs `work` unless one is already pending; returns whether it succeeded. */
  run(work: () => Promise<unknown>): Promise<boolean>;
  clearError(): void;
}

export function useAction(): Action {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const busy = useRef(false);
  const run = useCallback(async (work: () => Promise<unknown>) => {
    if (busy.current) return false;
    busy.current = true;
    setPending(true);
    setError(null);
    try {
      await work();
      return true;
    } catch (failure) {
      setError(describeError(failure));
      return false;
    } finally {
      busy.current = false;
      setPending(false);
    }
  }, []);
  return { pending, error, run, clearError: useCallback(() => setError(null), []) };
}

/** `fn` at most once per `ms`, trailing: a burst of events makes one read at its end. */
export function useThrottle(fn: () => void, ms: number): () => void {
  const latest = useRef(fn);
  latest.current = fn;
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current !== null) clearTimeout(timer.current);
    },
    [],
  );
  return useCallback(() => {
    if (timer.current !== null) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      latest.current();
    }, ms);
  }, [ms]);
}

export interface Paged<T> {
  /** Every row read so far, the pages in order. */
  rows: T[];
  loading: boolean;
  error: string | null;
  /** Reads the next page, keeping the rows (nothing while it is being read); null when there is none. */
  more: (() => void) | null;
  /** Reads the list again from its first page. */
  reload(): void;
}

/**
 * A list read page by page: the first at once, each next on `more` (a cursor or an offset, as the
 * route pages), starting over when `key` changes. An answer to an older read is dropped.
 */
export function usePaged<T, C>(key: string, load: (cursor: C | null) => Promise<{ rows: T[]; next: C | null }>): Paged<T> {
  const [state, setState] = useState<{ key: string; rows: T[]; next: C | null; loading: boolean; error: string | null }>({
    key,
    rows: [],
    next: null,
    loading: true,
    error: null,
  });
  const loadRef = useRef(load);
  loadRef.current = load;
  const latest = useRef(0);
  const read = useCallback(async (forKey: string, rows: T[], cursor: C | null) => {
    const mine = ++latest.current;
    setState({ key: forKey, rows, next: cursor, loading: true, error: null });
    try {
      const page = await loadRef.current(cursor);
      if (mine === latest.current) setState({ key: forKey, rows: [...rows, ...page.rows], next: page.next, loading: false, error: null });
    } catch (error) {
      // A failed next page keeps its cursor, so "more" tries it again.
      if (mine === latest.current) setState({ key: forKey, rows, next: cursor, loading: false, error: describeError(error) });
    }
  }, []);
  useEffect(() => void read(key, [], null), [key, read]);
  const current = state.key === key ? state : { key, rows: [], next: null, loading: true, error: null };
  return {
    rows: current.rows,
    loading: current.loading,
    error: current.error,
    // Kept while the next page is read, so the button that asked for it keeps the focus.
    more: current.next === null ? null : () => void (current.loading || read(key, current.rows, current.next)),
    reload: () => void read(key, [], null),
  };
}
