/**
 * What a run cost, read from the meter of the benchmarks' builds (`GET /__bench/cost`, see
 * `bench/direct/cost-meter.ts`) before and after it: requests into Durable Objects and into the
 * Worker, active time, rows read and written, with the statements and key-value calls behind
 * them; and the bill of it per 1,000 steps (`cost-rules.ts`).
 */
import type { Platform } from "../../test/e2e/support/platform";
import { waitFor } from "../../test/e2e/support/wait";
import { retryClosedConnection } from "../world";
import { type Bill, billOf, type CostCounts, type MeterSnapshot, type Tally } from "./cost-rules";

/** No call in flight on any object for this long: the run's last unit and its reports are done. */
const QUIET_MS = 300;
const SETTLE_TIMEOUT_MS = 30_000;
const SETTLE_POLL_MS = 50;

export async function readMeter(proc: Platform): Promise<MeterSnapshot> {
  return retryClosedConnection(async () => {
    const res = await fetch(`${proc.url}/__bench/cost`, { signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`GET /__bench/cost answered ${res.status}`);
    return (await res.json()) as MeterSnapshot;
  });
}

/** The meter once no object has had a call in flight for `QUIET_MS`. */
export async function settledMeter(proc: Platform): Promise<MeterSnapshot> {
  return waitFor(
    async () => {
      const snapshot = await readMeter(proc);
      return snapshot.inFlight === 0 && snapshot.quietMs >= QUIET_MS ? snapshot : undefined;
    },
    { timeoutMs: SETTLE_TIMEOUT_MS, intervalMs: SETTLE_POLL_MS, what: "the objects to settle" },
  );
}

export interface ClassCost {
  requests: number;
  alarms: number;
  activeMs: number;
  rowsRead: number;
  rowsWritten: number;
}

/** What one run cost, in all (not per step). */
export interface RunCost extends ClassCost {
  workerRequests: number;
  byClass: Record<string, ClassCost>;
  /** By class, then statement or key-value call; only those the run used. */
  statements: Record<string, Record<string, Tally>>;
  /** By class, then public method: requests. */
  methods: Record<string, Record<string, number>>;
}

export function costBetween(before: MeterSnapshot, after: MeterSnapshot): RunCost {
  if (after.unattributed > before.unattributed)
    throw new Error(`the meter could not charge ${after.unattributed - before.unattributed} storage calls to an object`);
  const byClass: Record<string, ClassCost> = {};
  const total: ClassCost = { requests: 0, alarms: 0, activeMs: 0, rowsRead: 0, rowsWritten: 0 };
  for (const [name, a] of Object.entries(after.classes)) {
    const b = before.classes[name];
    const diff: ClassCost = {
      requests: a.requests - (b?.requests ?? 0),
      alarms: a.alarms - (b?.alarms ?? 0),
      activeMs: a.activeMs - (b?.activeMs ?? 0),
      rowsRead: a.rowsRead - (b?.rowsRead ?? 0),
      rowsWritten: a.rowsWritten - (b?.rowsWritten ?? 0),
    };
    if (Object.values(diff).every((v) => v === 0)) continue;
    byClass[name] = diff;
    for (const key of Object.keys(total) as (keyof ClassCost)[]) total[key] += diff[key];
  }
  const statements: RunCost["statements"] = {};
  for (const [className, byName] of Object.entries(after.statements)) {
    for (const [name, a] of Object.entries(byName)) {
      const b = before.statements[className]?.[name];
      const diff = {
        calls: a.calls - (b?.calls ?? 0),
        rowsRead: a.rowsRead - (b?.rowsRead ?? 0),
        rowsWritten: a.rowsWritten - (b?.rowsWritten ?? 0),
      };
      if (diff.calls === 0 && diff.rowsRead === 0 && diff.rowsWritten === 0) continue;
      (statements[className] ??= {})[name] = diff;
    }
  }
  const methods: RunCost["methods"] = {};
  for (const [className, byMethod] of Object.entries(after.methods)) {
    for (const [name, count] of Object.entries(byMethod)) {
      const diff = count - (before.methods[className]?.[name] ?? 0);
      if (diff > 0) (methods[className] ??= {})[name] = diff;
    }
  }
  return { ...total, workerRequests: after.workerRequests - before.workerRequests, byClass, statements, methods };
}

/** A run's counts scaled to 1,000 steps; `storedBytes` is what the run left stored. */
export function countsPer1000Steps(cost: RunCost, steps: number, storedBytes: number): CostCounts {
  const k = 1000 / steps;
  return {
    doRequests: cost.requests * k,
    workerRequests: cost.workerRequests * k,
    activeSeconds: (cost.activeMs / 1000) * k,
    rowsRead: cost.rowsRead * k,
    rowsWritten: cost.rowsWritten * k,
    storedBytes: storedBytes * k,
  };
}

export function billPer1000Steps(cost: RunCost, steps: number, storedBytes: number): Bill {
  return billOf(countsPer1000Steps(cost, steps, storedBytes));
}

/** One row of the breakdown: a statement or key-value call of a class, per step. */
export interface StatementRow {
  className: string;
  name: string;
  callsPerStep: number;
  rowsReadPerStep: number;
  rowsWrittenPerStep: number;
}

/** The statements of several runs of `steps` steps each, per step (the runs' mean), most rows written first. */
export function statementsPerStep(runs: readonly RunCost[], steps: number): StatementRow[] {
  const sums = new Map<string, StatementRow>();
  for (const run of runs) {
    for (const [className, byName] of Object.entries(run.statements)) {
      for (const [name, tally] of Object.entries(byName)) {
        const key = `${className}\u0000${name}`;
        const row = sums.get(key) ?? { className, name, callsPerStep: 0, rowsReadPerStep: 0, rowsWrittenPerStep: 0 };
        row.callsPerStep += tally.calls;
        row.rowsReadPerStep += tally.rowsRead;
        row.rowsWrittenPerStep += tally.rowsWritten;
        sums.set(key, row);
      }
    }
  }
  const n = runs.length * steps;
  return [...sums.values()]
    .map((row) => ({
      ...row,
      callsPerStep: row.callsPerStep / n,
      rowsReadPerStep: row.rowsReadPerStep / n,
      rowsWrittenPerStep: row.rowsWrittenPerStep / n,
    }))
    .sort((a, b) => b.rowsWrittenPerStep - a.rowsWrittenPerStep || b.rowsReadPerStep - a.rowsReadPerStep);
}

/** `$0.0123`: dollars with four significant digits, enough to compare bills of a few cents. */
export function fmtDollars(value: number): string {
  if (!Number.isFinite(value)) return "n/a";
  return `$${value.toPrecision(3)}`;
}

/** Requests per 1,000 steps by class and method, over several runs of `steps` steps each (their mean), most first. */
export function requestsPer1000Steps(runs: readonly RunCost[], steps: number): { className: string; method: string; per1000: number }[] {
  const sums = new Map<string, { className: string; method: string; per1000: number }>();
  for (const run of runs) {
    for (const [className, byMethod] of Object.entries(run.methods)) {
      for (const [method, count] of Object.entries(byMethod)) {
        const key = `${className}.${method}`;
        const row = sums.get(key) ?? { className, method, per1000: 0 };
        row.per1000 += count;
        sums.set(key, row);
      }
    }
  }
  const k = 1000 / (runs.length * steps);
  return [...sums.values()].map((r) => ({ ...r, per1000: r.per1000 * k })).sort((a, b) => b.per1000 - a.per1000);
}
