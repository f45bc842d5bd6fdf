/**
 * Throughput (`--full`): many sessions started at once, on the bare loop and on the platform
 * (all in one tenant, and spread over ten), until every one is done: the time it takes,
 * failures and answers ≥ 500 (both must be 0), peak memory, CPU time and storage per step.
 */
import { join } from "node:path";
import type { ApiClient } from "../../test/e2e/support/api-client";
import { mapLimit } from "../../test/e2e/support/pool";
import { uniqueName } from "../../test/e2e/support/stack";
import { load1, rssPeakSampler, sqliteBytes, workerdCpuMs } from "../support/machine";
import { GET_TIME_TOOL, toolSteps } from "../support/model-script";
import type { Table } from "../support/report";
import { fmt, fmtSpread, ratio, spread } from "../support/stats";
import { type BaselineStatus, pollUntil, retryClosedConnection, type World } from "../world";

export const THROUGHPUT_LOADS = [
  { sessions: 100, steps: 20 },
  { sessions: 1_000, steps: 10 },
] as const;
type Load = (typeof THROUGHPUT_LOADS)[number];
/** "At once", as a client can: this many requests in flight until every session is started. */
const START_CONCURRENCY = 64;
/** Scripting, checking and clean-up requests to the mock and the platform, after the clock stops. */
const SIDE_CONCURRENCY = 16;
const POLL_MS = 1_000;
const RUN_TIMEOUT_MS = 30 * 60_000;
const STATUS_BATCH = 500;
const MIB = 2 ** 20;

type Layout = { target: "baseline" } | { target: "platform"; tenants: number };
const LAYOUTS: Layout[] = [{ target: "baseline" }, { target: "platform", tenants: 1 }, { target: "platform", tenants: 10 }];

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
  load: number;
}

export type ThroughputResult = Record<string, Figures[]>;
const keyOf = (load: Load, layout: Layout) => `${load.sessions}x${load.steps}:${layout.target === "baseline" ? "baseline" : layout.tenants}`;

export async function measureThroughput(world: World, reps: number): Promise<ThroughputResult> {
  const result: ThroughputResult = {};
  for (const load of THROUGHPUT_LOADS) {
    for (let rep = 0; rep < reps; rep++) {
      const order = LAYOUTS.map((_, i) => LAYOUTS[(i + rep) % LAYOUTS.length]!);
      for (const layout of order) {
        const figures = await runOnce(world, load, layout);
        (result[keyOf(load, layout)] ??= []).push(figures);
        console.log(`  ${keyOf(load, layout)} ${rep + 1}/${reps}: ${JSON.stringify(figures)}`);
      }
    }
  }
  return result;
}

async function runOnce(world: World, load: Load, layout: Layout): Promise<Figures> {
  const proc = layout.target === "platform" ? world.platform : world.baseline;
  const models = Array.from({ length: load.sessions }, () => uniqueName("bench-tp"));
  await mapLimit(models, SIDE_CONCURRENCY, (model) => retryClosedConnection(() => world.mock.model(model).script(...toolSteps(load.steps))));
  const clients = layout.target === "platform" ? await Promise.all(Array.from({ length: layout.tenants }, () => world.client(uniqueName("bench-tp")))) : [];
  const state = join(proc.root, "state");
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
    if (layout.target === "baseline") return answered(() => world.startBaseline(model, input));
    const res = await answered(() => clients[i % clients.length]!.request<{ id: string }>("POST", "/v1/sessions", { input, model, tools: [GET_TIME_TOOL] }));
    if (res && res.status >= 500) serverErrors++;
    return res?.status === 201 ? res.body.id : null;
  });
  const allStarted = Date.now();
  failures += ids.filter((id) => id === null).length;

  if (layout.target === "platform") {
    const expected = clients.map((_, c) => ids.filter((id, i) => id !== null && i % clients.length === c).length);
    await pollUntil(async () => (await Promise.all(clients.map(finished))).every((n, c) => n >= expected[c]!), RUN_TIMEOUT_MS, "every session to end", POLL_MS);
  } else {
    let open = ids.filter((id): id is string => id !== null);
    await pollUntil(async () => {
      open = (await answered(() => stillRunning(world, open))) ?? open;
      return open.length === 0;
    }, RUN_TIMEOUT_MS, "every bare-loop run to end", POLL_MS);
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
    if (layout.target === "baseline") return (await answered(() => world.baselineStatuses([id])))?.[id] === "done";
    const res = await answered(() => clients[i % clients.length]!.request<{ status: string; stop_reason: string; usage: { steps: number } }>("GET", `/v1/sessions/${id}`));
    if (res && res.status >= 500) serverErrors++;
    return res?.status === 200 && res.body.status === "done" && res.body.stop_reason === "end_turn" && res.body.usage.steps === load.steps + 1;
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

export function throughputTable(result: ThroughputResult): Table {
  const rows: string[][] = [];
  for (const load of THROUGHPUT_LOADS) {
    const bare = spread(result[keyOf(load, { target: "baseline" })]!.map((f) => f.allDoneS)).median;
    for (const layout of LAYOUTS) {
      const runs = result[keyOf(load, layout)]!;
      const done = spread(runs.map((f) => f.allDoneS));
      rows.push([
        `${load.sessions.toLocaleString("en-US")} × ${load.steps}`,
        layout.target === "baseline" ? "bare loop" : `platform, ${layout.tenants} tenant${layout.tenants > 1 ? "s" : ""}`,
        fmtSpread(done),
        layout.target === "baseline" ? "—" : ratio(done.median, bare),
        fmtSpread(spread(runs.map((f) => f.allStartedS))),
        String(runs.reduce((s, f) => s + f.failures, 0)),
        String(runs.reduce((s, f) => s + f.serverErrors, 0)),
        String(runs.reduce((s, f) => s + f.unanswered, 0)),
        fmtSpread(spread(runs.map((f) => f.peakRssMiB)), 0),
        fmtSpread(spread(runs.map((f) => f.cpuS))),
        fmtSpread(spread(runs.map((f) => f.bytesPerStep)), 0),
      ]);
    }
  }
  const loads = Object.values(result).flat().map((f) => f.load);
  const reps = Object.values(result)[0]?.length ?? 0;
  return {
    title: "Throughput: sessions started at once, until all are done",
    columns: ["sessions × steps", "target", "all done (s)", "ratio", "all started (s)", "failures", "answers ≥ 500", "no answer in 30 s", "peak RSS (MiB)", "CPU (s)", "storage per step (bytes)"],
    rows,
    notes: [
      `${reps} runs of each, the three targets rotated; median with range. Sessions are started ${START_CONCURRENCY} requests at a time ("all started" is when the last start was answered); "all done" is the last model answer on the mock's clock.`,
      "Failures: a start refused or unanswered, or a session that did not end `done`/`end_turn` with every step; answers ≥ 500 and requests without an answer in 30 s count every request of the run (starts, status polls, checks). Peak RSS and CPU: the workerd processes of `wrangler dev` (the runtime and the proxy in front of it). Storage per step: the growth of what the Durable Objects' SQLite databases hold (pages in use, as SQLite reports them), over the steps run; each session's own fixed share is included.",
      `1-minute load average at the runs' starts: ${fmt(Math.min(...loads), 2)}–${fmt(Math.max(...loads), 2)}.`,
    ],
  };
}
