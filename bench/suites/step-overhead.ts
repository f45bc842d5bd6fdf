/**
 * Step overhead: one session of 50 steps, each a model call that asks for `get_time` and the
 * tool unit that answers it, on the platform and on the two bare loops (the second streams its
 * model answers), in turn, several times. Unit boundaries come from the mock model's clock, and
 * from `GET …/steps` when it exists; what each run costs on Cloudflare's bill from the builds'
 * meter (`support/cost.ts`) and the growth of the objects' databases.
 */
import { join } from "node:path";
import type { ApiClient } from "../../test/e2e/support/api-client";
import { uniqueName } from "../../test/e2e/support/stack";
import {
  billPer1000Steps,
  costBetween,
  countsPer1000Steps,
  fmtDollars,
  type RunCost,
  requestsPer1000Steps,
  settledMeter,
  statementsPerStep,
} from "../support/cost";
import type { MeterSnapshot } from "../support/cost-rules";
import { load1, sqliteBytes, sqlitePagesByTable, type TableSpace, workerdCpuMs } from "../support/machine";
import { gapsBetweenModelCalls } from "../support/model-script";
import type { Table } from "../support/report";
import { runSession, TARGET_NAMES, type Target } from "../support/run-session";
import { fmt, fmtSpread, median, pairedRatio, quantile, type Spread, spread } from "../support/stats";
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
  /** CPU time of the workerd processes, per step: from the start request to the last model answer. */
  cpuPerStepMs: number;
  /** Queue time per unit from `GET …/steps`, when served. */
  queue: { median: number; p95: number; p99: number } | null;
  /** What the run cost (the whole run: its start, 50 steps, its end and its reports). */
  cost: RunCost;
  /** Growth of the objects' databases over the run (pages in use). */
  storedBytes: number;
  /** The same growth by class and table (`class\ttable`), where it is not zero. */
  pages: Record<string, TableSpace>;
  load: number;
}

async function measuredRun(world: World, target: Target, client: ApiClient): Promise<RunFigures> {
  const proc = target === "platform" ? world.platform : world.baseline;
  const state = join(proc.root, "state");
  const load = load1();
  const meterBefore = await settledMeter(proc);
  const bytesBefore = sqliteBytes(state);
  const pagesBefore = sqlitePagesByTable(state);
  let meterAfter: MeterSnapshot | null = null;
  let bytesAfter = 0;
  let pagesAfter = pagesBefore;
  let cpuAfter = 0;
  const cpuBefore = workerdCpuMs(proc.processGroup);
  const { timeline, sessionId } = await runSession(world, target, STEP_OVERHEAD_STEPS, client, {
    // Before the run's status is asked for, which is the benchmark's request, not the run's; the
    // CPU time before the meter is read, which takes a request or a few.
    whenAnswered: async () => {
      cpuAfter = workerdCpuMs(proc.processGroup);
      meterAfter = await settledMeter(proc);
      bytesAfter = sqliteBytes(state);
      pagesAfter = sqlitePagesByTable(state);
    },
  });
  const cpu = cpuAfter - cpuBefore;
  if (meterAfter === null) throw new Error("the meter was not read after the run");
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
    cost: costBetween(meterBefore, meterAfter),
    storedBytes: bytesAfter - bytesBefore,
    pages: pagesGrowth(pagesBefore, pagesAfter),
    load,
  };
}

function pagesGrowth(
  before: Map<string, Map<string, TableSpace>>,
  after: Map<string, Map<string, TableSpace>>,
): Record<string, TableSpace> {
  const growth: Record<string, TableSpace> = {};
  const keys = new Set([...before, ...after].flatMap(([className, tables]) => [...tables.keys()].map((table) => `${className}\t${table}`)));
  for (const key of keys) {
    const [className, table] = key.split("\t") as [string, string];
    const was = before.get(className)?.get(table);
    const now = after.get(className)?.get(table);
    const pages = (now?.pages ?? 0) - (was?.pages ?? 0);
    if (pages !== 0) growth[key] = { pages, bytes: (now?.bytes ?? 0) - (was?.bytes ?? 0) };
  }
  return growth;
}

export type StepOverheadResult = Record<Target, RunFigures[]>;

const TARGETS: Target[] = ["platform", "baseline", "streaming"];

export async function measureStepOverhead(world: World, reps: number): Promise<StepOverheadResult> {
  const client = await world.client(uniqueName("bench-steps"));
  for (const target of TARGETS) await runSession(world, target, WARMUP_STEPS, client);
  const result: StepOverheadResult = { platform: [], baseline: [], streaming: [] };
  for (let rep = 0; rep < reps; rep++) {
    // Rotating which goes first, so a drift in the machine's load favours none.
    const order = TARGETS.map((_, i) => TARGETS[(i + rep) % TARGETS.length]!);
    for (const target of order) result[target].push(await measuredRun(world, target, client));
    const last = (t: Target) => result[t].at(-1)!;
    console.log(
      `  step overhead ${rep + 1}/${reps}: gap ${fmt(last("platform").gapMedian)} ms vs ${fmt(last("baseline").gapMedian)} (streaming ${fmt(last("streaming").gapMedian)}) ms; rows written ${last("platform").cost.rowsWritten} vs ${last("baseline").cost.rowsWritten} (${last("streaming").cost.rowsWritten})`,
    );
  }
  return result;
}

/** The per-run figures the cost rows and the targets read, per 1,000 steps unless named otherwise. */
export const costFigures = {
  doRequests: (f: RunFigures) => countsPer1000Steps(f.cost, STEP_OVERHEAD_STEPS, f.storedBytes).doRequests,
  alarms: (f: RunFigures) => (f.cost.alarms * 1000) / STEP_OVERHEAD_STEPS,
  workerRequests: (f: RunFigures) => countsPer1000Steps(f.cost, STEP_OVERHEAD_STEPS, f.storedBytes).workerRequests,
  activeSeconds: (f: RunFigures) => countsPer1000Steps(f.cost, STEP_OVERHEAD_STEPS, f.storedBytes).activeSeconds,
  rowsRead: (f: RunFigures) => countsPer1000Steps(f.cost, STEP_OVERHEAD_STEPS, f.storedBytes).rowsRead,
  rowsWritten: (f: RunFigures) => countsPer1000Steps(f.cost, STEP_OVERHEAD_STEPS, f.storedBytes).rowsWritten,
  storedBytesPerStep: (f: RunFigures) => f.storedBytes / STEP_OVERHEAD_STEPS,
  bill: (f: RunFigures) => billPer1000Steps(f.cost, STEP_OVERHEAD_STEPS, f.storedBytes).total,
};

export function stepOverheadTable(result: StepOverheadResult): Table {
  const row = (label: string, pick: (f: RunFigures) => number, digits = 1, format = (v: Spread) => fmtSpread(v, digits)) => {
    const b = result.baseline.map(pick);
    const st = result.streaming.map(pick);
    const p = result.platform.map(pick);
    return [label, format(spread(b)), format(spread(st)), format(spread(p)), pairedRatio(p, b), pairedRatio(p, st)];
  };
  const queues = result.platform.map((f) => f.queue);
  const served = queues.every((q) => q !== null);
  const queueRow = (label: string, pick: (q: NonNullable<RunFigures["queue"]>) => number) => [
    label,
    "—",
    "—",
    fmtSpread(spread(queues.map((q) => pick(q!)))),
    "—",
    "—",
  ];
  const queueRows = served
    ? [
        queueRow("queue time per unit (`/steps`), median, ms", (q) => q.median),
        queueRow("queue time per unit (`/steps`), p95, ms", (q) => q.p95),
        queueRow("queue time per unit (`/steps`), p99, ms", (q) => q.p99),
      ]
    : [["queue time per unit (`/steps`)", "—", "—", "n/a: the route is not served yet", "—", "—"]];
  const loads = TARGETS.flatMap((t) => result[t]).map((f) => f.load);
  const dollars = (v: Spread) =>
    v.n < 2 || v.min === v.max ? fmtDollars(v.median) : `${fmtDollars(v.median)} (${fmtDollars(v.min)}–${fmtDollars(v.max)})`;
  return {
    title: `Step overhead: 1 session × ${STEP_OVERHEAD_STEPS} steps, one get_time call per step`,
    columns: [
      "measure",
      TARGET_NAMES.baseline,
      TARGET_NAMES.streaming,
      TARGET_NAMES.platform,
      "ratio ÷ bare loop",
      "ratio ÷ streaming bare loop",
    ],
    rows: [
      row("gap between model calls, median, ms", (f) => f.gapMedian),
      row("gap between model calls, p95, ms", (f) => f.gapP95),
      row("gap between model calls, p99, ms", (f) => f.gapP99),
      row("time per step, ms", (f) => f.stepMs),
      row("CPU per step (workerd processes), ms", (f) => f.cpuPerStepMs),
      ...queueRows,
      row("Durable Object requests per 1,000 steps", costFigures.doRequests, 0),
      row("of which alarms", costFigures.alarms, 0),
      row("Worker requests per 1,000 steps", costFigures.workerRequests, 0),
      row("rows read per 1,000 steps", costFigures.rowsRead, 0),
      row("rows written per 1,000 steps", costFigures.rowsWritten, 0),
      row("stored bytes per step", costFigures.storedBytesPerStep, 0),
      row("objects' active time per 1,000 steps, s", costFigures.activeSeconds, 2),
      row("bill per 1,000 steps (US$)", costFigures.bill, 0, dollars),
    ],
    notes: [
      `${result.platform.length} runs each, in turn; each cell is the median of the runs' figures with their range; a ratio is taken run by run (each platform run with the bare-loop run beside it), then its median and range.`,
      "Gap: from the mock model's answer to the next model call (mock clock, 1 ms resolution); it spans the rest of the model unit, an alarm, the tool unit, an alarm and the start of the next model unit.",
      `Requests, rows and active time: counted in the runtime by the builds' meter over the whole run (its start request, its ${STEP_OVERHEAD_STEPS} steps, its final answer and the reports that follow, until no object has had a call in flight for 300 ms), every Durable Object of the target counted; stored bytes: the growth of the objects' databases (pages in use). The bill: Workers Paid prices past the monthly allowances, the stored bytes kept one month (see "The bill" in the method).`,
      `1-minute load average during the runs: ${fmt(Math.min(...loads), 2)}–${fmt(Math.max(...loads), 2)}.`,
    ],
  };
}

/** Where the platform's rows go: each statement and key-value call, per step, most rows written first. */
export function statementsTable(result: StepOverheadResult, limit = 20): Table {
  const READERS = 6;
  const rows = statementsPerStep(
    result.platform.map((f) => f.cost),
    STEP_OVERHEAD_STEPS,
  );
  // Every statement that writes a row in ten steps, and the heaviest readers.
  const readers = new Set([...rows].sort((a, b) => b.rowsReadPerStep - a.rowsReadPerStep).slice(0, READERS));
  const shown = rows.filter((r, i) => (i < limit && r.rowsWrittenPerStep >= 0.1) || readers.has(r));
  const rest = rows.filter((r) => !shown.includes(r));
  const sum = (pick: (r: (typeof rows)[number]) => number) => rest.reduce((s, r) => s + pick(r), 0);
  const cells = (r: { callsPerStep: number; rowsReadPerStep: number; rowsWrittenPerStep: number }) => [
    fmt(r.callsPerStep, 2),
    fmt(r.rowsReadPerStep, 2),
    fmt(r.rowsWrittenPerStep, 2),
  ];
  return {
    title: "Platform: rows per step by statement",
    columns: ["object", "statement or key-value call", "calls per step", "rows read per step", "rows written per step"],
    rows: [
      ...shown.map((r) => [r.className, `\`${r.name.replace(/\|/g, "\\|").replace(/`/g, "'")}\``, ...cells(r)]),
      ...(rest.length > 0
        ? [
            [
              "—",
              `${rest.length} more`,
              ...cells({
                callsPerStep: sum((r) => r.callsPerStep),
                rowsReadPerStep: sum((r) => r.rowsReadPerStep),
                rowsWrittenPerStep: sum((r) => r.rowsWrittenPerStep),
              }),
            ],
          ]
        : []),
    ],
    notes: [
      `The step-overhead runs above, their means per step (the session's start and end spread over its ${STEP_OVERHEAD_STEPS} steps); a statement's rows are its cursor's \`rowsRead\` and \`rowsWritten\`, a key-value call's as the pricing page bills them.`,
    ],
  };
}

/** Where each target's stored bytes go: the pages each table and index added per run. */
export function pagesTable(result: StepOverheadResult): Table {
  const rows: string[][] = [];
  for (const target of ["baseline", "platform"] as const) {
    const runs = result[target];
    const keys = [...new Set(runs.flatMap((f) => Object.keys(f.pages)))].sort();
    const perRun = (key: string, of: keyof TableSpace) => spread(runs.map((f) => f.pages[key]?.[of] ?? 0));
    const byPages = keys
      .map((key) => ({ key, pages: perRun(key, "pages"), bytes: perRun(key, "bytes") }))
      .sort((a, b) => b.pages.median - a.pages.median || a.key.localeCompare(b.key));
    for (const { key, pages, bytes } of byPages) {
      const [className, table] = key.split("\t") as [string, string];
      rows.push([TARGET_NAMES[target], className, `\`${table}\``, fmtSpread(pages, 1), fmt(bytes.median / STEP_OVERHEAD_STEPS, 0)]);
    }
    const inAll = (of: keyof TableSpace) => spread(runs.map((f) => Object.values(f.pages).reduce((sum, space) => sum + space[of], 0)));
    rows.push([
      TARGET_NAMES[target],
      "**in all**",
      "",
      `**${fmtSpread(inAll("pages"), 1)}**`,
      `**${fmt(inAll("bytes").median / STEP_OVERHEAD_STEPS, 0)}**`,
    ]);
  }
  return {
    title: "Stored pages per run by table",
    columns: ["target", "object", "table or index", "pages added per run", "bytes per step"],
    rows,
    notes: [
      `The step-overhead runs above: the pages each table and index (SQLite's \`dbstat\`) gained over a run, as the stored bytes row counts them, median and range; bytes per step: the median of those pages' bytes ÷ ${STEP_OVERHEAD_STEPS}. A new object's first pages (its schema, the runtime's own tables) count here too; the tenant index's grow a page every few runs.`,
    ],
  };
}

/** Where each target's requests go: each object's public methods (and alarms), per 1,000 steps. */
export function requestsTable(result: StepOverheadResult): Table {
  const rows = TARGETS.flatMap((target) =>
    requestsPer1000Steps(
      result[target].map((f) => f.cost),
      STEP_OVERHEAD_STEPS,
    ).map((r) => [TARGET_NAMES[target], r.className, `\`${r.method}\``, fmt(r.per1000, 0)]),
  );
  return {
    title: "Durable Object requests per 1,000 steps by method",
    columns: ["target", "object", "method", "requests per 1,000 steps"],
    rows,
    notes: [
      "The step-overhead runs above, their mean; a request is a call of a public method from outside the object (an RPC call, `fetch`) or an alarm.",
    ],
  };
}
