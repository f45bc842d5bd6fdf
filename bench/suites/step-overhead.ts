/**
 * Step overhead: one session of 50 steps, each a model call that asks for `get_time` and the
 * tool unit that answers it, on the platform and on the bare loop, alternately, several times.
 * Unit boundaries come from the mock model's clock, and from `GET …/steps` when it exists.
 */
import type { ApiClient } from "../../test/e2e/support/api-client";
import { uniqueName } from "../../test/e2e/support/stack";
import { load1, workerdCpuMs } from "../support/machine";
import { gapsBetweenModelCalls } from "../support/model-script";
import type { Table } from "../support/report";
import { runSession, type Target } from "../support/run-session";
import { fmt, fmtSpread, median, pairedRatio, quantile, spread } from "../support/stats";
import { readSteps } from "../support/steps-route";
import type { World } from "../world";

export const STEP_OVERHEAD_STEPS = 50;
/** A first run of each, not counted: it compiles the code paths and creates the tenant. */
const WARMUP_STEPS = 10;

export interface RunFigures {
  gapMedian: number;
  gapP95: number;
  gapP99: number;
  /** From the first model call to the last, per step. */
  stepMs: number;
  /** CPU time of the workerd processes, per step. */
  cpuPerStepMs: number;
  /** Queue time per unit from `GET …/steps`, when served. */
  queue: { median: number; p95: number; p99: number } | null;
  load: number;
}

async function measuredRun(world: World, target: Target, client: ApiClient): Promise<RunFigures> {
  const proc = target === "platform" ? world.platform : world.baseline;
  const load = load1();
  const cpuBefore = workerdCpuMs(proc.processGroup);
  const { timeline, sessionId } = await runSession(world, target, STEP_OVERHEAD_STEPS, client);
  const cpu = workerdCpuMs(proc.processGroup) - cpuBefore;
  const gaps = gapsBetweenModelCalls(timeline);
  const first = timeline.arrivals[0]!;
  const last = timeline.arrivals[timeline.arrivals.length - 1]!;
  const units = target === "platform" ? await readSteps(client, sessionId) : null;
  // The first unit waits for the creating request, not for an earlier unit.
  const queued = units?.slice(1).map((u) => u.queued_ms) ?? [];
  return {
    gapMedian: median(gaps),
    gapP95: quantile(gaps, 0.95),
    gapP99: quantile(gaps, 0.99),
    stepMs: (last - first) / STEP_OVERHEAD_STEPS,
    cpuPerStepMs: cpu / STEP_OVERHEAD_STEPS,
    queue: units ? { median: median(queued), p95: quantile(queued, 0.95), p99: quantile(queued, 0.99) } : null,
    load,
  };
}

export interface StepOverheadResult {
  platform: RunFigures[];
  baseline: RunFigures[];
}

export async function measureStepOverhead(world: World, reps: number): Promise<StepOverheadResult> {
  const client = await world.client(uniqueName("bench-steps"));
  await runSession(world, "platform", WARMUP_STEPS, client);
  await runSession(world, "baseline", WARMUP_STEPS, client);
  const result: StepOverheadResult = { platform: [], baseline: [] };
  for (let rep = 0; rep < reps; rep++) {
    // Alternating which goes first, so a drift in the machine's load favours neither.
    const order: Target[] = rep % 2 === 0 ? ["platform", "baseline"] : ["baseline", "platform"];
    for (const target of order) result[target].push(await measuredRun(world, target, client));
    console.log(`  step overhead ${rep + 1}/${reps}: gap ${fmt(result.platform.at(-1)!.gapMedian)} ms vs ${fmt(result.baseline.at(-1)!.gapMedian)} ms`);
  }
  return result;
}

export function stepOverheadTable(result: StepOverheadResult): Table {
  const row = (label: string, pick: (f: RunFigures) => number) => {
    const b = result.baseline.map(pick);
    const p = result.platform.map(pick);
    return [label, fmtSpread(spread(b)), fmtSpread(spread(p)), pairedRatio(p, b)];
  };
  const queues = result.platform.map((f) => f.queue);
  const served = queues.every((q) => q !== null);
  const queueRow = (label: string, pick: (q: NonNullable<RunFigures["queue"]>) => number) => [label, "—", fmtSpread(spread(queues.map((q) => pick(q!)))), "—"];
  const queueRows = served
    ? [
        queueRow("queue time per unit (`/steps`), median", (q) => q.median),
        queueRow("queue time per unit (`/steps`), p95", (q) => q.p95),
        queueRow("queue time per unit (`/steps`), p99", (q) => q.p99),
      ]
    : [["queue time per unit (`/steps`)", "—", "n/a: the route is not served yet", "—"]];
  const loads = [...result.platform, ...result.baseline].map((f) => f.load);
  return {
    title: `Step overhead: 1 session × ${STEP_OVERHEAD_STEPS} steps, one get_time call per step`,
    columns: ["measure (ms)", "bare loop", "platform", "ratio"],
    rows: [
      row("gap between model calls, median", (f) => f.gapMedian),
      row("gap between model calls, p95", (f) => f.gapP95),
      row("gap between model calls, p99", (f) => f.gapP99),
      row("time per step", (f) => f.stepMs),
      row("CPU per step (workerd processes)", (f) => f.cpuPerStepMs),
      ...queueRows,
    ],
    notes: [
      `${result.platform.length} runs each, alternating; each cell is the median of the runs' figures with their range; the ratio is taken run by run (each platform run with the bare-loop run beside it), then its median and range.`,
      "Gap: from the mock model's answer to the next model call (mock clock, 1 ms resolution); it spans the rest of the model unit, an alarm, the tool unit, an alarm and the start of the next model unit.",
      `1-minute load average during the runs: ${fmt(Math.min(...loads), 2)}–${fmt(Math.max(...loads), 2)}.`,
    ],
  };
}
