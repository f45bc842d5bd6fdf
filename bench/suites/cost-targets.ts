/**
 * The cost targets, each the platform's figure against the bare loop's (the one that reads its
 * model answer whole) in the same run, with "met" computed from the run: time, CPU, rows written
 * and stored bytes per step and the bill per 1,000 steps from the step overhead, and 100 × 20
 * all done from the throughput. The streaming bare loop's ratio is shown beside it.
 */
import type { Table } from "../support/report";
import { fmt, median, spread } from "../support/stats";
import { costFigures, type RunFigures, type StepOverheadResult } from "./step-overhead";
import type { ThroughputResult } from "./throughput";

export interface CostTarget {
  name: string;
  /** The platform's figure may be at most this many times the bare loop's. */
  limit: number;
  /** Median of the run-by-run ratios to the bare loop and to the streaming one; null when not measured. */
  ratio: number | null;
  streamingRatio: number | null;
  /** The medians the ratio compares, as printed. */
  bare: string;
  platform: string;
}

/** The median of run-by-run ratios `a[i] / b[i]`; null for none. */
export function medianRatio(a: readonly number[], b: readonly number[]): number | null {
  const ratios = a.map((x, i) => x / b[i]!).filter(Number.isFinite);
  return ratios.length === 0 ? null : median(ratios);
}

export function costTargets(steps: StepOverheadResult | null, throughput: ThroughputResult | null): CostTarget[] {
  const stepTarget = (name: string, limit: number, pick: (f: RunFigures) => number, unit: (v: number) => string): CostTarget => {
    if (!steps) return { name, limit, ratio: null, streamingRatio: null, bare: "—", platform: "—" };
    const p = steps.platform.map(pick);
    return {
      name,
      limit,
      ratio: medianRatio(p, steps.baseline.map(pick)),
      streamingRatio: medianRatio(p, steps.streaming.map(pick)),
      bare: unit(spread(steps.baseline.map(pick)).median),
      platform: unit(spread(p).median),
    };
  };
  const done = (key: string) => throughput?.[key]?.map((f) => f.allDoneS) ?? [];
  const platformDone = done("100x20:1");
  const bareDone = done("100x20:baseline");
  const streamingDone = done("100x20:streaming");
  const ms = (v: number) => `${fmt(v)} ms`;
  const count = (v: number) => fmt(v, 0);
  const dollars = (v: number) => `$${v.toPrecision(3)}`;
  return [
    stepTarget("time per step", 1.25, (f) => f.stepMs, ms),
    stepTarget("CPU per step", 1.5, (f) => f.cpuPerStepMs, ms),
    stepTarget(
      "rows written per step",
      2,
      (f) => costFigures.rowsWritten(f) / 1000,
      (v) => fmt(v, 2),
    ),
    stepTarget("stored bytes per step", 2, costFigures.storedBytesPerStep, count),
    {
      name: "100 × 20 all done (1 tenant)",
      limit: 1.5,
      // Rotated, not paired: the medians' ratio, as the throughput table gives it.
      ratio: platformDone.length && bareDone.length ? median(platformDone) / median(bareDone) : null,
      streamingRatio: platformDone.length && streamingDone.length ? median(platformDone) / median(streamingDone) : null,
      bare: bareDone.length ? `${fmt(median(bareDone))} s` : "—",
      platform: platformDone.length ? `${fmt(median(platformDone))} s` : "—",
    },
    stepTarget("bill per 1,000 steps", 1.5, costFigures.bill, dollars),
  ];
}

export function costTargetsTable(steps: StepOverheadResult | null, throughput: ThroughputResult | null): Table {
  const ratio = (r: number | null) => (r === null ? "not measured" : `${fmt(r, 2)}×`);
  return {
    title: "Targets (cost per step)",
    columns: ["target", "bare loop", "platform", "ratio ÷ bare loop", "limit", "met", "ratio ÷ streaming bare loop"],
    rows: costTargets(steps, throughput).map((t) => [
      t.name,
      t.bare,
      t.platform,
      ratio(t.ratio),
      `≤ ${fmt(t.limit, 2)}×`,
      t.ratio === null ? "—" : t.ratio <= t.limit ? "yes" : "**no**",
      ratio(t.streamingRatio),
    ]),
    notes: [
      "Each against the bare loop that reads its model answer whole, in the same run; the ratio is the median of the run-by-run ratios of the step-overhead runs (for 100 × 20, of the rotated runs' medians); the streaming bare loop's ratio is beside it. Figures and their ranges: the tables below.",
    ],
  };
}
