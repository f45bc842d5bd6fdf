/**
 * What a run costs on Cloudflare's bill, as Cloudflare counts it: the rows a key-value or alarm
 * call of a SQLite-backed Durable Object is billed as, how a statement is named in the
 * breakdown, the published Workers Paid prices, and the arithmetic of the bill. Pure, so both the
 * counting inside the runtime (`bench/direct/cost-meter.ts`) and the tables in Node use it.
 *
 * Source: https://developers.cloudflare.com/durable-objects/platform/pricing/ (the "Compute
 * billing" and "SQLite storage backend" tables and their footnotes), and
 * https://developers.cloudflare.com/workers/platform/pricing/ for a Worker's own requests.
 */

/** Workers Paid prices in US dollars, past the monthly allowances (which a bill per step leaves out). */
export const PRICES = {
  /** Durable Object requests: RPC sessions, HTTP requests, alarm invocations. */
  doRequestsPerMillion: 0.15,
  /** Duration, per million GB-s; an object is billed for 128 MB whatever it uses. */
  gbSecondsPerMillion: 12.5,
  /** 128 MB as the page's own example counts it: seconds × 128 MB / 1 GB. */
  objectMemoryGB: 0.128,
  rowsReadPerMillion: 0.001,
  rowsWrittenPerMillion: 1.0,
  /** SQL stored data, per GB-month. */
  storedGBMonth: 0.2,
  /** A Worker's own requests (Standard usage model). */
  workerRequestsPerMillion: 0.3,
} as const;

const GB = 1e9;

/** The counts a bill is made of, per some number of steps. */
export interface CostCounts {
  doRequests: number;
  workerRequests: number;
  /** Wall-clock seconds the objects were active. */
  activeSeconds: number;
  rowsRead: number;
  rowsWritten: number;
  /** Bytes the run left stored (kept a month in the bill). */
  storedBytes: number;
}

export interface Bill {
  requests: number;
  duration: number;
  rowsRead: number;
  rowsWritten: number;
  storage: number;
  total: number;
}

/** The bill of `counts` in US dollars, each part and the total; stored bytes are billed for one month. */
export function billOf(counts: CostCounts): Bill {
  const requests = (counts.doRequests * PRICES.doRequestsPerMillion + counts.workerRequests * PRICES.workerRequestsPerMillion) / 1e6;
  const duration = (counts.activeSeconds * PRICES.objectMemoryGB * PRICES.gbSecondsPerMillion) / 1e6;
  const rowsRead = (counts.rowsRead * PRICES.rowsReadPerMillion) / 1e6;
  const rowsWritten = (counts.rowsWritten * PRICES.rowsWrittenPerMillion) / 1e6;
  const storage = (counts.storedBytes / GB) * PRICES.storedGBMonth;
  return { requests, duration, rowsRead, rowsWritten, storage, total: requests + duration + rowsRead + rowsWritten + storage };
}

export interface Tally {
  calls: number;
  rowsRead: number;
  rowsWritten: number;
}

export interface ClassTally {
  /** Objects of the class constructed (each a cold start here). */
  objects: number;
  requests: number;
  alarms: number;
  /** Wall-clock ms the class's objects were active. */
  activeMs: number;
  rowsRead: number;
  rowsWritten: number;
}

/** What the builds' `GET /__bench/cost` answers: totals since the process started. */
export interface MeterSnapshot {
  /** Requests into the Worker itself, the benchmarks' own routes left out. */
  workerRequests: number;
  /** Storage calls the meter could not charge to an object: 0, or the counts are short. */
  unattributed: number;
  classes: Record<string, ClassTally>;
  /** By class, then by statement or key-value call: calls and rows. */
  statements: Record<string, Record<string, Tally>>;
  /** By class, then public method: requests. */
  methods: Record<string, Record<string, number>>;
  /** Calls in flight on any object now, and ms since the last one settled. */
  inFlight: number;
  quietMs: number;
}

/** The key-value and alarm calls of a Durable Object's storage that the meter counts. */
export type KvCall = "get" | "put" | "delete" | "list" | "setAlarm" | "deleteAlarm" | "getAlarm" | "deleteAll";

/**
 * The rows a key-value or alarm call is billed as on a SQLite-backed object. The page: key-value
 * methods "store and query data in a hidden SQLite table and are billed as rows read and rows
 * written"; "each setAlarm() is billed as a single row written"; "deletes are counted as rows
 * written". So: a get reads one row per key asked (found or not), a list one per entry it returns
 * (at least one, the probe of an empty range), a put writes one row per key, a delete one per
 * key; `setAlarm` and `deleteAlarm` write one row; `getAlarm` is not billed (the page names no
 * charge; the alarm is the runtime's metadata); `deleteAll` is counted as one row written (the
 * page is silent; a session object calls it only when erased, which no run here does).
 */
export function kvRows(call: KvCall, args: readonly unknown[], result: unknown): { read: number; written: number } {
  const keys = (arg: unknown) => (Array.isArray(arg) ? arg.length : arg !== null && typeof arg === "object" ? Object.keys(arg).length : 1);
  switch (call) {
    case "get":
      return { read: keys(args[0]), written: 0 };
    case "list":
      return { read: Math.max(1, sizeOf(result)), written: 0 };
    case "put":
      // put(key, value) or put({ key: value, … })
      return { read: 0, written: typeof args[0] === "string" ? 1 : keys(args[0]) };
    case "delete":
      return { read: 0, written: keys(args[0]) };
    case "setAlarm":
    case "deleteAlarm":
    case "deleteAll":
      return { read: 0, written: 1 };
    case "getAlarm":
      return { read: 0, written: 0 };
  }
}

/** Entries of a list's result: a Map (async API), or an array of entries; an iterator is not consumed. */
function sizeOf(result: unknown): number {
  if (result instanceof Map) return result.size;
  if (Array.isArray(result)) return result.length;
  return 0;
}

/**
 * A statement's name in the breakdown: its text on one line, literals kept (they name what a
 * statement does), long texts cut; a run of `?` placeholders is folded so an `IN (?, ?, …)`
 * of any length is one statement.
 */
export function statementName(sql: string): string {
  const oneLine = sql
    .replace(/\s+/g, " ")
    .trim()
    .replace(/\?(\s*,\s*\?)+/g, "?, …");
  return oneLine.length > 160 ? `${oneLine.slice(0, 157)}…` : oneLine;
}

/**
 * An insert's name with its first bound value when that is a kind, a role or a type (a short
 * lowercase word: `[assistant]`, `[tools]`), so the breakdown shows which rows a unit writes.
 */
export function statementKind(name: string, firstBinding: unknown): string {
  return name.startsWith("INSERT") && typeof firstBinding === "string" && /^[a-z][a-z_.]{0,23}$/.test(firstBinding)
    ? `${name} [${firstBinding}]`
    : name;
}

/**
 * A key's name in the breakdown: digits and long hexadecimal or base-64-like runs folded, so a
 * key per event or per request is one entry.
 */
export function keyName(key: string): string {
  return key.replace(/[0-9a-f]{8,}|[A-Za-z0-9_-]{20,}/g, "…").replace(/\d+/g, "#");
}
