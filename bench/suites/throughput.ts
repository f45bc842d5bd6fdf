/**
 * Throughput: many sessions started at once, on the bare loops and on the platform (all in one
 * tenant, and spread over ten), until every one is done: the time it takes, failures and answers
 * ≥ 500 (both must be 0), peak memory, CPU time and storage per step; at 100 sessions also what
 * the run cost on Cloudflare's bill (the builds' meter), the runs then being watched through the
 * mock so that no status request is counted. 100 × 20 alone is the `throughput100` suite.
 */
import { join } from "node:path";
import type { ApiClient } from "../../test/e2e/support/api-client";
import { mapLimit } from "../../test/e2e/support/pool";
import { uniqueName } from "../../test/e2e/support/stack";
import { load1, rssPeakSampler, sqliteBytes, workerdCpuMs } from "../support/machine";
import { billPer1000Steps, costBetween, countsPer1000Steps, fmtDollars, type RunCost, settledMeter } from "../support/cost";
import { GET_TIME_TOOL, toolSteps } from "../support/model-script";
import type { Table } from "../support/report";
import { TARGET_NAMES } from "../support/run-session";
import { fmt, fmtSpread, ratio, spread } from "../support/stats";
import { type BaselineStatus, pollUntil, retryClosedConnection, type World } from "../world";

export interface Load {
  sessions: number;
  steps: number;
  /** The platform's layouts (tenants per run); default: one tenant and ten. */
  tenants?: readonly number[];
  /** One tenant whose sessions are spread over this many shards (`PUT /v1/admin/tenants/{id}/shards`), per entry. */
  shards?: readonly number[];
  /** The same, with a daily token budget far above the run (every start judged and reserved on the index). */
  budgetedShards?: readonly number[];
}
export const THROUGHPUT_LOADS: readonly Load[] = [
  { sessions: 100, steps: 20 },
  { sessions: 1_000, steps: 10 },
];
/**
 * One large tenant beside the bare loop (`--only tenant-scale`): 500 × 10 and 2,000 × 5 in one
 * tenant, and 500 × 10 spread over 100 tenants (many tenants, five sessions each).
 */
export const TENANT_SCALE_LOADS: readonly Load[] = [
  { sessions: 500, steps: 10, tenants: [1, 100], shards: [8], budgetedShards: [8] },
  { sessions: 2_000, steps: 5, tenants: [1], shards: [8], budgetedShards: [8] },
];
/** Up to this many sessions, a run is watched through the mock and its cost metered. */
const METERED_SESSIONS = 100;
/** How often the mock is asked how far each session got. */
const MOCK_POLL_MS = 500;
/** "At once", as a client can: this many requests in flight until every session is started. */
const START_CONCURRENCY = 64;
/** Scripting, checking and clean-up requests to the mock and the platform, after the clock stops. */
const SIDE_CONCURRENCY = 16;
const POLL_MS = 1_000;
const RUN_TIMEOUT_MS = 30 * 60_000;
const STATUS_BATCH = 500;
const MIB = 2 ** 20;

type Layout = { target: "baseline" | "streaming" } | { target: "platform"; tenants: number; shards?: number; budgeted?: boolean };
const BARE: Layout = { target: "baseline" };
const STREAMING: Layout = { target: "streaming" };
/** The streaming bare loop runs where the cost is metered. */
const layoutsOf = (load: Load): Layout[] => [
  BARE,
  ...(metered(load) ? [STREAMING] : []),
  ...(load.tenants ?? [1, 10]).map((tenants): Layout => ({ target: "platform", tenants })),
  ...(load.shards ?? []).map((shards): Layout => ({ target: "platform", tenants: 1, shards })),
  ...(load.budgetedShards ?? []).map((shards): Layout => ({ target: "platform", tenants: 1, shards, budgeted: true })),
];
const metered = (load: Load) => load.sessions <= METERED_SESSIONS;

interface Figures {
  allDoneS: number;
  allStartedS: number;
  failures: number;
  serverErrors: number;
  /** Requests the client gave up on: no answer within the API client's 30 s. */
  unanswered: number;
  peakRssMiB: number;
  cpuS: number;
  bytesPerStep: number;
  /** What the run cost, when metered. */
  cost: RunCost | null;
  load: number;
}

export type ThroughputResult = Record<string, Figures[]>;
const keyOf = (load: Load, layout: Layout) =>
  `${load.sessions}x${load.steps}:${layout.target === "platform" ? `${layout.tenants}${layout.shards ? `s${layout.shards}` : ""}${layout.budgeted ? "b" : ""}` : layout.target}`;

export async function measureThroughput(world: World, reps: number, loads: readonly Load[] = THROUGHPUT_LOADS): Promise<ThroughputResult> {
  const result: ThroughputResult = {};
  for (const load of loads) {
    const layouts = layoutsOf(load);
    for (let rep = 0; rep < reps; rep++) {
      const order = layouts.map((_, i) => layouts[(i + rep) % layouts.length]!);
      for (const layout of order) {
        const figures = await runOnce(world, load, layout);
        (result[keyOf(load, layout)] ??= []).push(figures);
        const { cost, ...shown } = figures;
        console.log(
          `  ${keyOf(load, layout)} ${rep + 1}/${reps}: ${JSON.stringify({ ...shown, rowsWritten: cost?.rowsWritten, doRequests: cost?.requests })}`,
        );
      }
    }
  }
  return result;
}

async function runOnce(world: World, load: Load, layout: Layout): Promise<Figures> {
  const proc = layout.target === "platform" ? world.platform : world.baseline;
  const models = Array.from({ length: load.sessions }, () => uniqueName("bench-tp"));
  await mapLimit(models, SIDE_CONCURRENCY, (model) =>
    retryClosedConnection(() => world.mock.model(model).script(...toolSteps(load.steps))),
  );
  const tenants = layout.target === "platform" ? Array.from({ length: layout.tenants }, () => uniqueName("bench-tp")) : [];
  if (layout.target === "platform" && layout.shards) {
    const admin = await world.client(uniqueName("bench-ops"), ["platform:admin"]);
    for (const tenant of tenants) await admin.expect(200, "PUT", `/v1/admin/tenants/${tenant}/shards`, { shards: layout.shards });
    if (layout.budgeted)
      for (const tenant of tenants)
        await admin.expect(200, "PUT", `/v1/admin/tenants/${tenant}/limits`, { max_tokens_per_day: 1_000_000_000_000 });
  }
  const clients = await Promise.all(tenants.map((tenant) => world.client(tenant)));
  const state = join(proc.root, "state");
  const meterBefore = metered(load) ? await settledMeter(proc) : null;
  const bytesBefore = sqliteBytes(state);
  const cpuBefore = workerdCpuMs(proc.processGroup);
  const rss = rssPeakSampler(proc.processGroup);
  const loadAvg = load1();
  let serverErrors = 0;
  let failures = 0;
  let unanswered = 0;
  /** A request without an answer is a failure of the run, counted, not the end of the benchmark. */
  const answered = async <T>(request: () => Promise<T>): Promise<T | null> => {
    try {
      return await request();
    } catch {
      unanswered++;
      return null;
    }
  };
  const finished = async (client: ApiClient) => (await answered(() => finishedCount(client))) ?? 0;

  const t0 = Date.now();
  const ids = await mapLimit(models, START_CONCURRENCY, async (model, i) => {
    const input = "What time is it, step after step?";
    if (layout.target !== "platform") return answered(() => world.startBaseline(model, input, layout.target === "streaming"));
    const res = await answered(() =>
      clients[i % clients.length]!.request<{ id: string }>("POST", "/v1/sessions", { input, model, tools: [GET_TIME_TOOL] }),
    );
    if (res && res.status >= 500) serverErrors++;
    return res?.status === 201 ? res.body.id : null;
  });
  const allStarted = Date.now();
  failures += ids.filter((id) => id === null).length;

  let cost: RunCost | null = null;
  if (meterBefore) {
    // Through the mock: a status request would be counted as the run's own.
    let open = models.filter((_, i) => ids[i] !== null);
    await pollUntil(
      async () => {
        const done = await mapLimit(
          open,
          SIDE_CONCURRENCY,
          async (model) =>
            (await retryClosedConnection(() => world.mock.model(model).requests())).filter((r) => r.answered_at !== undefined).length >
            load.steps,
        );
        open = open.filter((_, i) => !done[i]);
        return open.length === 0;
      },
      RUN_TIMEOUT_MS,
      "every session's last model answer",
      MOCK_POLL_MS,
    );
    cost = costBetween(meterBefore, await settledMeter(proc));
  } else if (layout.target === "platform") {
    const expected = clients.map((_, c) => ids.filter((id, i) => id !== null && i % clients.length === c).length);
    await pollUntil(
      async () => (await Promise.all(clients.map(finished))).every((n, c) => n >= expected[c]!),
      RUN_TIMEOUT_MS,
      "every session to end",
      POLL_MS,
    );
  } else {
    let open = ids.filter((id): id is string => id !== null);
    await pollUntil(
      async () => {
        open = (await answered(() => stillRunning(world, open))) ?? open;
        return open.length === 0;
      },
      RUN_TIMEOUT_MS,
      "every bare-loop run to end",
      POLL_MS,
    );
  }
  const peakRss = rss.stop();
  const cpu = workerdCpuMs(proc.processGroup) - cpuBefore;
  const bytes = sqliteBytes(state) - bytesBefore;

  // The clock has stopped: check every session, and read when its last answer went out.
  const lastAnswers = await mapLimit(models, SIDE_CONCURRENCY, async (model) => {
    const calls = await retryClosedConnection(() => world.mock.model(model).requests());
    await retryClosedConnection(() => world.mock.model(model).forget());
    return calls.length === load.steps + 1 ? Math.max(...calls.map((c) => c.answered_at ?? Number.NaN)) : Number.NaN;
  });
  const verdicts = await mapLimit(ids, SIDE_CONCURRENCY, async (id, i) => {
    if (id === null) return true; // already counted
    if (layout.target !== "platform") return (await answered(() => world.baselineStatuses([id])))?.[id] === "done";
    const res = await answered(() =>
      clients[i % clients.length]!.request<{ status: string; stop_reason: string; usage: { steps: number } }>("GET", `/v1/sessions/${id}`),
    );
    if (res && res.status >= 500) serverErrors++;
    return (
      res?.status === 200 && res.body.status === "done" && res.body.stop_reason === "end_turn" && res.body.usage.steps === load.steps + 1
    );
  });
  failures += verdicts.filter((ok, i) => !ok || Number.isNaN(lastAnswers[i]!)).length;
  return {
    allDoneS: (Math.max(...lastAnswers.filter((t) => !Number.isNaN(t))) - t0) / 1000,
    allStartedS: (allStarted - t0) / 1000,
    failures,
    serverErrors,
    unanswered,
    peakRssMiB: peakRss / MIB,
    cpuS: cpu / 1000,
    bytesPerStep: bytes / (load.sessions * load.steps),
    cost,
    load: loadAvg,
  };
}

async function finishedCount(client: ApiClient): Promise<number> {
  const res = await client.request<{ counts: Record<string, number> }>("GET", "/v1/tenant");
  if (res.status !== 200) return 0;
  const { done = 0, failed = 0, cancelled = 0 } = res.body.counts;
  return done + failed + cancelled;
}

async function stillRunning(world: World, ids: string[]): Promise<string[]> {
  const open: string[] = [];
  for (let i = 0; i < ids.length; i += STATUS_BATCH) {
    const batch = ids.slice(i, i + STATUS_BATCH);
    const statuses: Record<string, BaselineStatus | null> = await world.baselineStatuses(batch);
    open.push(...batch.filter((id) => statuses[id] === "running"));
  }
  return open;
}

export function throughputTable(result: ThroughputResult, loads: readonly Load[] = THROUGHPUT_LOADS): Table {
  const rows: string[][] = [];
  for (const load of loads) {
    const medianDone = (layout: Layout) =>
      result[keyOf(load, layout)] ? spread(result[keyOf(load, layout)]!.map((f) => f.allDoneS)).median : Number.NaN;
    const bare = medianDone(BARE);
    const streaming = medianDone(STREAMING);
    for (const layout of layoutsOf(load)) {
      const runs = result[keyOf(load, layout)];
      if (!runs) continue;
      const done = spread(runs.map((f) => f.allDoneS));
      const steps = load.sessions * load.steps;
      const costs = runs.map((f) => (f.cost ? { cost: f.cost, stored: f.bytesPerStep * steps } : null));
      const costCell = (pick: (c: { cost: RunCost; stored: number }) => number, digits = 0) =>
        costs.every((c) => c !== null) ? fmtSpread(spread(costs.map((c) => pick(c!))), digits) : "—";
      const bill = costs.every((c) => c !== null) ? spread(costs.map((c) => billPer1000Steps(c!.cost, steps, c!.stored).total)) : null;
      rows.push([
        `${load.sessions.toLocaleString("en-US")} × ${load.steps}`,
        layout.target === "platform"
          ? `platform, ${layout.tenants} tenant${layout.tenants > 1 ? "s" : ""}${layout.shards ? `, ${layout.shards} shards` : ""}${layout.budgeted ? ", daily budget" : ""}`
          : TARGET_NAMES[layout.target],
        fmtSpread(done),
        layout.target === "baseline" ? "—" : ratio(done.median, bare),
        layout.target === "platform" && Number.isFinite(streaming) ? ratio(done.median, streaming) : "—",
        fmtSpread(spread(runs.map((f) => f.allStartedS))),
        String(runs.reduce((s, f) => s + f.failures, 0)),
        String(runs.reduce((s, f) => s + f.serverErrors, 0)),
        String(runs.reduce((s, f) => s + f.unanswered, 0)),
        fmtSpread(spread(runs.map((f) => f.peakRssMiB)), 0),
        fmtSpread(spread(runs.map((f) => f.cpuS))),
        fmtSpread(spread(runs.map((f) => f.bytesPerStep)), 0),
        costCell((c) => countsPer1000Steps(c.cost, steps, c.stored).doRequests),
        costCell((c) => countsPer1000Steps(c.cost, steps, c.stored).rowsRead),
        costCell((c) => countsPer1000Steps(c.cost, steps, c.stored).rowsWritten),
        bill
          ? bill.min === bill.max
            ? fmtDollars(bill.median)
            : `${fmtDollars(bill.median)} (${fmtDollars(bill.min)}–${fmtDollars(bill.max)})`
          : "—",
      ]);
    }
  }
  const loadAvgs = Object.values(result)
    .flat()
    .map((f) => f.load);
  const reps = Object.values(result)[0]?.length ?? 0;
  return {
    title: "Throughput: sessions started at once, until all are done",
    columns: [
      "sessions × steps",
      "target",
      "all done (s)",
      "ratio ÷ bare loop",
      "ratio ÷ streaming bare loop",
      "all started (s)",
      "failures",
      "answers ≥ 500",
      "no answer in 30 s",
      "peak RSS (MiB)",
      "CPU (s)",
      "storage per step (bytes)",
      "DO requests per 1,000 steps",
      "rows read per 1,000 steps",
      "rows written per 1,000 steps",
      "bill per 1,000 steps (US$)",
    ],
    rows,
    notes: [
      `${reps} runs of each, the targets rotated; median with range. Sessions are started ${START_CONCURRENCY} requests at a time ("all started" is when the last start was answered); "all done" is the last model answer on the mock's clock.`,
      "Failures: a start refused or unanswered, or a session that did not end `done`/`end_turn` with every step; answers ≥ 500 and requests without an answer in 30 s count every request of the run (starts, status polls, checks). Peak RSS and CPU: the workerd processes of `wrangler dev` (the runtime and the proxy in front of it). Storage per step: the growth of what the Durable Objects' SQLite databases hold (pages in use), over the steps run; each session's own fixed share is included.",
      `Requests, rows and the bill (${METERED_SESSIONS} sessions or fewer): the builds' meter over the run, watched through the mock (each session's model calls, every ${MOCK_POLL_MS} ms) until no object has had a call in flight for 300 ms, the starts included; the bill as in the step-overhead table. Larger runs are watched by status requests, which the meter would count, so they show "—".`,
      `1-minute load average at the runs' starts: ${fmt(Math.min(...loadAvgs), 2)}–${fmt(Math.max(...loadAvgs), 2)}.`,
    ],
  };
}
