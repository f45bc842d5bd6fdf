/**
 * Counts, inside the runtime, what Cloudflare bills a Durable Object for: requests into it (each
 * call of a public method from outside: an RPC call, `fetch`, an alarm), the wall-clock time it
 * is active, and the rows its storage calls read and write. Only the benchmarks' builds use it
 * (`bench/direct/worker.ts`, `bench/baseline/worker.ts`): each exports its classes through
 * `meterClass`, so the production classes are unchanged.
 *
 * - **Requests**: every public method of the class (its own and its ancestors', up to
 *   `DurableObject`) is wrapped on a subclass; a call counts when it comes from outside. The
 *   platform's objects never call their own public methods, so every call is one; an alarm
 *   counts as one request (the page: "alarm invocations").
 * - **Duration**: an object is active from the start of a call until the last call in flight on it
 *   settles (calls that overlap count once), timed by `Date.now()`, which the runtime moves on at
 *   each event and I/O; the runtime's commit after a call and CPU time after the last I/O of a
 *   call are not in it. No object here holds a WebSocket or waits for a timer between calls.
 * - **Rows**: `SqlStorage.prototype.exec` is wrapped: each cursor's `rowsRead` and `rowsWritten`
 *   (what Cloudflare bills, index updates included) are read when the object's last call in
 *   flight settles, since a cursor may be read lazily within the call. Key-value and alarm calls
 *   (`ctx.storage.kv.*`, `ctx.storage.get/put/delete/list`, `setAlarm`, `deleteAlarm`) are
 *   counted by the page's rules (`kvRows`). Statements on wrangler dev's own table of object names
 *   (`__miniflare_do_name`, which a deployed object does not have) are left out.
 */
import { DurableObject } from "cloudflare:workers";
import {
  type ClassTally,
  keyName,
  type KvCall,
  kvRows,
  type MeterSnapshot,
  statementKind,
  statementName,
  type Tally,
} from "../support/cost-rules";

const classes = new Map<string, ClassTally>();
const statements = new Map<string, Map<string, Tally>>();
const methods = new Map<string, Map<string, number>>();
let workerRequests = 0;
/** Storage calls on a storage object no meter knows (a sign that a runtime hands out more than one). */
let unattributed = 0;
let inFlight = 0;
let lastSettled = 0;

function tallyOf(className: string): ClassTally {
  let tally = classes.get(className);
  if (!tally) classes.set(className, (tally = { objects: 0, requests: 0, alarms: 0, activeMs: 0, rowsRead: 0, rowsWritten: 0 }));
  return tally;
}

function addRows(className: string, name: string, read: number, written: number, call: boolean): void {
  const tally = tallyOf(className);
  tally.rowsRead += read;
  tally.rowsWritten += written;
  let byName = statements.get(className);
  if (!byName) statements.set(className, (byName = new Map()));
  let entry = byName.get(name);
  if (!entry) byName.set(name, (entry = { calls: 0, rowsRead: 0, rowsWritten: 0 }));
  if (call) entry.calls++;
  entry.rowsRead += read;
  entry.rowsWritten += written;
}

interface Pending {
  cursor: SqlStorageCursor<Record<string, SqlStorageValue>>;
  name: string;
  read: number;
  written: number;
}

/** One object's calls in flight and the cursors its calls opened. */
class ObjectMeter {
  #inFlight = 0;
  #since = 0;
  #pending: Pending[] = [];

  constructor(readonly className: string) {
    tallyOf(className).objects++;
  }

  enter(method: string): void {
    const tally = tallyOf(this.className);
    tally.requests++;
    if (method === "alarm") tally.alarms++;
    let byMethod = methods.get(this.className);
    if (!byMethod) methods.set(this.className, (byMethod = new Map()));
    byMethod.set(method, (byMethod.get(method) ?? 0) + 1);
    if (this.#inFlight++ === 0) this.#since = Date.now();
    inFlight++;
  }

  exit(): void {
    inFlight--;
    if (--this.#inFlight > 0) return;
    const now = Date.now();
    tallyOf(this.className).activeMs += now - this.#since;
    lastSettled = now;
    this.fold();
    this.#pending = [];
  }

  track(cursor: Pending["cursor"], sql: string, firstBinding: unknown): void {
    const name = nameOf(sql);
    if (name === null) return;
    const entry = { cursor, name: statementKind(name, firstBinding), read: 0, written: 0 };
    addRows(this.className, entry.name, 0, 0, true);
    this.#pending.push(entry);
    // A statement run outside any call (none here) is folded at once.
    if (this.#inFlight === 0) {
      this.fold();
      this.#pending = [];
    }
  }

  kv(call: KvCall, args: unknown[], result: unknown, api: "kv" | "storage" = "kv"): void {
    const rows = kvRows(call, args, result);
    const key = typeof args[0] === "string" && call !== "setAlarm" ? ` ${keyName(args[0])}` : "";
    addRows(this.className, `${api}.${call}${key}`, rows.read, rows.written, true);
  }

  /** Adds what each open cursor has read and written since it was last looked at. */
  fold(): void {
    for (const p of this.#pending) {
      const read = p.cursor.rowsRead;
      const written = p.cursor.rowsWritten;
      addRows(this.className, p.name, read - p.read, written - p.written, false);
      p.read = read;
      p.written = written;
    }
  }
}

const LOCAL_ONLY_TABLE = "__miniflare_do_name";

/** Statement texts are few and repeated: each is named once. */
const names = new Map<string, string | null>();
const MAX_NAMES = 10_000;

/** A statement's name, or null for wrangler dev's own bookkeeping of an object's name, which a deployed object does not have. */
function nameOf(sql: string): string | null {
  let name = names.get(sql);
  if (name === undefined) {
    name = sql.includes(LOCAL_ONLY_TABLE) ? null : statementName(sql);
    if (names.size < MAX_NAMES) names.set(sql, name);
  }
  return name;
}

/** The meter of each object, and of the storage objects it reaches its storage through. */
const byInstance = new WeakMap<object, ObjectMeter>();
const byStorage = new WeakMap<object, ObjectMeter>();
const patched = new WeakSet<object>();

const KV_CALLS: readonly KvCall[] = ["get", "put", "delete", "list"];
const STORAGE_CALLS: readonly KvCall[] = [...KV_CALLS, "setAlarm", "deleteAlarm", "getAlarm", "deleteAll"];

/** Wraps `names` on `proto` once: each call is counted against the meter of `this`. */
function patch(
  proto: object,
  names: readonly string[],
  count: (meter: ObjectMeter, name: string, args: unknown[], result: unknown) => unknown,
): void {
  if (patched.has(proto)) return;
  patched.add(proto);
  for (const name of names) {
    const original = (proto as Record<string, unknown>)[name];
    if (typeof original !== "function") continue;
    Object.defineProperty(proto, name, {
      configurable: true,
      writable: true,
      value: function (this: object, ...args: unknown[]) {
        const result = original.apply(this, args);
        const meter = byStorage.get(this);
        if (meter) return count(meter, name, args, result);
        unattributed++;
        return result;
      },
    });
  }
}

function attachStorage(ctx: DurableObjectState, meter: ObjectMeter): void {
  const storage = ctx.storage;
  const sql = storage.sql;
  const kv = storage.kv;
  for (const target of [storage, sql, kv]) byStorage.set(target, meter);
  patch(Object.getPrototypeOf(sql), ["exec"], (m, _name, args, cursor) => {
    m.track(cursor as Pending["cursor"], String(args[0]), args[1]);
    return cursor;
  });
  patch(Object.getPrototypeOf(kv), KV_CALLS, (m, name, args, result) => {
    // A sync list is an iterator: its entries are counted as it is read.
    if (name === "list") return countedList(m, args, result as Iterable<unknown>);
    m.kv(name as KvCall, args, result);
    return result;
  });
  patch(Object.getPrototypeOf(storage), STORAGE_CALLS, (m, name, args, result) => {
    // The async calls settle later; a list's rows are its entries.
    void Promise.resolve(result).then(
      (value) => m.kv(name as KvCall, args, value, "storage"),
      () => undefined,
    );
    return result;
  });
}

function* countedList(meter: ObjectMeter, args: unknown[], entries: Iterable<unknown>): Generator<unknown> {
  const seen: unknown[] = [];
  try {
    for (const entry of entries) {
      seen.push(null);
      yield entry;
    }
  } finally {
    meter.kv("list", args, seen);
  }
}

// Any env: each class names its own.
type DurableObjectClass = new (...args: any[]) => DurableObject<any>;

/**
 * `Base` with every public method counted, under the same RPC surface. The constructor's own
 * statements (its migrations) are counted against the first call, which wakes the object.
 * `internal` names methods the class calls on itself (never from outside): not requests.
 */
export function meterClass<T extends DurableObjectClass>(Base: T, className: string, internal: readonly string[] = []): T {
  class Metered extends Base {
    // A mixin's constructor takes `any[]`.
    constructor(...args: any[]) {
      const ctx = args[0] as DurableObjectState;
      // `BENCH_METER=off` (`npm run bench -- --no-meter`): nothing counted, to see what counting costs.
      const meter = (args[1] as { BENCH_METER?: unknown } | undefined)?.BENCH_METER === "off" ? null : new ObjectMeter(className);
      if (meter) attachStorage(ctx, meter);
      super(ctx, args[1]);
      if (meter) byInstance.set(this, meter);
    }
  }
  const seen = new Set<string>(["constructor", ...internal]);
  for (
    let proto = Base.prototype as object;
    proto && proto !== DurableObject.prototype && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (seen.has(name)) continue;
      seen.add(name);
      const descriptor = Object.getOwnPropertyDescriptor(proto, name);
      const method = descriptor?.value as unknown;
      if (typeof method !== "function") continue;
      Object.defineProperty(Metered.prototype, name, { ...descriptor, value: counted(name, method as (...args: unknown[]) => unknown) });
    }
  }
  return Metered as unknown as T;
}

function counted(name: string, method: (...args: unknown[]) => unknown) {
  return function (this: object, ...args: unknown[]): unknown {
    const meter = byInstance.get(this);
    if (!meter) return method.apply(this, args);
    meter.enter(name);
    let result: unknown;
    try {
      result = method.apply(this, args);
    } catch (error) {
      meter.exit();
      throw error;
    }
    if (result instanceof Promise) {
      return result.then(
        (value) => {
          meter.exit();
          return value;
        },
        (error: unknown) => {
          meter.exit();
          throw error;
        },
      );
    }
    meter.exit();
    return result;
  };
}

/** Counts a request into the Worker (the benchmarks' own routes are not counted). */
export function countWorkerRequest(): void {
  workerRequests++;
}

export function meterSnapshot(): MeterSnapshot {
  const byClass: MeterSnapshot["statements"] = {};
  for (const [className, byName] of statements)
    byClass[className] = Object.fromEntries([...byName].map(([name, tally]) => [name, { ...tally }]));
  return {
    workerRequests,
    unattributed,
    classes: Object.fromEntries([...classes].map(([name, tally]) => [name, { ...tally }])),
    statements: byClass,
    methods: Object.fromEntries([...methods].map(([className, byMethod]) => [className, Object.fromEntries(byMethod)])),
    inFlight,
    quietMs: inFlight > 0 ? 0 : Date.now() - lastSettled,
  };
}

/** The route both builds serve: `GET /__bench/cost`. */
export function meterResponse(): Response {
  return Response.json(meterSnapshot());
}
