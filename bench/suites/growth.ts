/**
 * Growth: how the time per step changes as one session's history grows (steps 10, 100 and
 * 300, platform and bare loop), and how long a page of the session list takes as a tenant
 * fills up with sessions (10, 1,000 and 10,000, created without input).
 */
import { mapLimit } from "../../test/e2e/support/pool";
import { uniqueName } from "../../test/e2e/support/stack";
import { load1 } from "../support/machine";
import { stepDurations } from "../support/model-script";
import type { Table } from "../support/report";
import { fmt, fmtSpread, median, pairedRatio, quantile, spread } from "../support/stats";
import { BENCH_SUBJECT, type World } from "../world";
import { runSession, type Target } from "../support/run-session";

export const GROWTH_STEPS = [10, 100, 300] as const;
/** Each figure is the median of the 10 steps around it (k−4 … k+5). */
const WINDOW_BEFORE = 4;
const WINDOW_AFTER = 5;
const LONG_RUN_STEPS = Math.max(...GROWTH_STEPS) + WINDOW_AFTER;
/** A long run is watched less often: each poll is a request its process must also serve. */
const LONG_RUN_POLL_MS = 1_000;

export const LIST_SIZES = [10, 1_000, 10_000] as const;
/**
 * Sessions up to this many are created for real (`POST /v1/sessions` without input); beyond it
 * the index is filled with rows alone (see `bench/direct/`), since the list reads only the index
 * and a real create takes about 17 ms of CPU here (8–50 a second on the shared two cores).
 */
const REAL_SESSIONS = 200;
const FILL_CONCURRENCY = 16;
const PAGE_SAMPLES = 30;
const PAGE_WARMUP = 3;

type GrowthTarget = Exclude<Target, "streaming">;

export interface GrowthResult {
  /** Per target, per repetition: the step time at each of GROWTH_STEPS. */
  steps: Record<GrowthTarget, number[][]>;
  /** Per list size: page latencies (tenant admin, all sessions; and a member, own sessions), and the rate of real creates. */
  pages: { size: number; admin: number[]; own: number[]; createsPerSecond: number | null; load: number }[];
  loads: number[];
}

export async function measureGrowth(world: World, reps: number): Promise<GrowthResult> {
  const result: GrowthResult = { steps: { platform: [], baseline: [] }, pages: [], loads: [] };
  const client = await world.client(uniqueName("bench-growth"));
  for (let rep = 0; rep < reps; rep++) {
    const order: GrowthTarget[] = rep % 2 === 0 ? ["platform", "baseline"] : ["baseline", "platform"];
    for (const target of order) {
      result.loads.push(load1());
      const { timeline } = await runSession(world, target, LONG_RUN_STEPS, client, {
        watch: { via: "status", pollMs: LONG_RUN_POLL_MS },
        keepRevived: true,
      });
      const durations = stepDurations(timeline);
      result.steps[target].push(GROWTH_STEPS.map((k) => median(durations.slice(k - 1 - WINDOW_BEFORE, k + WINDOW_AFTER))));
    }
    console.log(
      `  growth ${rep + 1}/${reps}: step 300 ${fmt(result.steps.platform.at(-1)![2]!)} ms vs ${fmt(result.steps.baseline.at(-1)![2]!)} ms`,
    );
  }
  await measurePages(world, result);
  return result;
}

async function measurePages(world: World, result: GrowthResult): Promise<void> {
  const tenant = uniqueName("bench-list");
  const member = await world.client(tenant);
  const admin = await world.client(tenant, ["sessions:read", "sessions:write", "tenant:admin"]);
  let created = 0;
  for (const size of LIST_SIZES) {
    const started = Date.now();
    const real = Math.max(0, Math.min(size, REAL_SESSIONS) - created);
    // No input: the session and its index row exist, no run starts. No Idempotency-Key either.
    await mapLimit(Array.from({ length: real }), FILL_CONCURRENCY, () => member.expect(201, "POST", "/v1/sessions", {}));
    const createsPerSecond = real > 0 ? (real * 1000) / (Date.now() - started) : null;
    if (size > created + real) await fillIndex(world, tenant, size - created - real);
    created = size;
    const load = load1();
    const admin_ = await samplePage(() => admin.expect(200, "GET", "/v1/sessions"));
    const own = await samplePage(() => member.expect(200, "GET", "/v1/sessions"));
    result.pages.push({ size, admin: admin_, own, createsPerSecond, load });
    console.log(`  list of ${size}: ${fmt(median(admin_), 2)} ms`);
  }
}

async function fillIndex(world: World, tenant: string, count: number): Promise<void> {
  const res = await fetch(`${world.platform.url}/__bench/index/${tenant}/sessions`, {
    method: "POST",
    body: JSON.stringify({ count, created_by: BENCH_SUBJECT }),
  });
  if (res.status !== 201) throw new Error(`filling the index answered ${res.status}: ${await res.text()}`);
}

async function samplePage(read: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < PAGE_WARMUP; i++) await read();
  const latencies: number[] = [];
  for (let i = 0; i < PAGE_SAMPLES; i++) {
    const sent = performance.now();
    await read();
    latencies.push(performance.now() - sent);
  }
  return latencies;
}

export function growthTables(result: GrowthResult): Table[] {
  const runs = (target: GrowthTarget, i: number) => result.steps[target].map((run) => run[i]!);
  const stepRows = GROWTH_STEPS.map((k, i) => [
    `step ${k}`,
    fmtSpread(spread(runs("baseline", i))),
    fmtSpread(spread(runs("platform", i))),
    pairedRatio(runs("platform", i), runs("baseline", i)),
  ]);
  const last = GROWTH_STEPS.length - 1;
  const growthOf = (target: GrowthTarget) => pairedRatio(runs(target, last), runs(target, 0));
  return [
    {
      title: "Growth of one session: time per step as its history grows",
      columns: ["step", "bare loop (ms)", "platform (ms)", "ratio"],
      rows: [...stepRows, [`step ${GROWTH_STEPS[last]} ÷ step ${GROWTH_STEPS[0]}`, growthOf("baseline"), growthOf("platform"), "—"]],
      notes: [
        `One session of ${LONG_RUN_STEPS} steps per run, ${result.steps.platform.length} runs each, alternating; a step's time is the median of steps k−${WINDOW_BEFORE} … k+${WINDOW_AFTER} (mock clock, from one model call to the next); median of the runs with their range; ratios are taken run by run, then their median and range.`,
        `1-minute load average at the runs' starts: ${fmt(Math.min(...result.loads), 2)}–${fmt(Math.max(...result.loads), 2)}.`,
      ],
    },
    {
      title: "Growth of one tenant: a page of the session list",
      columns: ["sessions", "page, tenant admin: p50 ms", "p95 ms", "page, own sessions: p50 ms", "p95 ms", "real creates per second"],
      rows: result.pages.map((p) => [
        p.size.toLocaleString("en-US"),
        fmt(median(p.admin), 2),
        fmt(quantile(p.admin, 0.95), 2),
        fmt(median(p.own), 2),
        fmt(quantile(p.own, 0.95), 2),
        p.createsPerSecond === null ? "—" : fmt(p.createsPerSecond, 0),
      ]),
      notes: [
        `\`GET /v1/sessions\` (default page of 50), ${PAGE_SAMPLES} requests one after another after ${PAGE_WARMUP} of warm-up, at each size; "tenant admin" lists all of the tenant's sessions, "own sessions" a member's (all of them here, so both pages are full).`,
        `The first ${REAL_SESSIONS.toLocaleString("en-US")} sessions are created with \`POST /v1/sessions\` without input, ${FILL_CONCURRENCY} at a time (the last column is that rate); the rest are index rows alone, reported to the tenant index as each new session object's first report would be, since the list reads only the index.`,
        `1-minute load average at the samples: ${result.pages.map((p) => fmt(p.load, 2)).join(", ")}.`,
      ],
    },
  ];
}
