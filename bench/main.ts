/**
 * `npm run bench`: step overhead (with what a step costs on Cloudflare's bill), gateway, growth
 * and index load of the platform against the bare loops, each repeated, and the cost targets;
 * `-- --full` adds throughput and the memory store; `-- --only steps,throughput100` is the
 * cost measurement alone; `-- --profile` records CPU profiles instead (see profile.ts). Rewrites
 * its section of BENCHMARKS.md, and keeps the raw figures in .tmp/bench/.
 *
 *   --reps N        repetitions of every measurement (defaults: per suite, below)
 *   --only a,b      only these suites (steps, gateway, growth, throughput100, throughput, tenant-scale, memory, index)
 *   --loads 500x10  only these loads (sessions x steps, comma-separated) of the tenant-scale suite
 *   --section NAME  the marked section of BENCHMARKS.md to rewrite (default: latest)
 *   --no-write      print the tables, leave BENCHMARKS.md alone
 *   --local-observability  keep wrangler dev's local trace store on (see world.ts)
 *   --no-meter      the builds' cost meter off (its counts all 0), to see what counting costs
 */
import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { PROJECT_ROOT } from "../test/e2e/support/environment";
import { runProfile } from "./profile";
import { gatewayTable, measureGateway } from "./suites/gateway";
import { growthTables, measureGrowth } from "./suites/growth";
import { measureMemory, memoryTables } from "./suites/memory";
import { indexLoadTables, measureIndexLoad } from "./suites/index-load";
import {
  measureStepOverhead,
  pagesTable,
  requestsTable,
  type StepOverheadResult,
  statementsTable,
  stepOverheadTable,
} from "./suites/step-overhead";
import { costTargetsTable } from "./suites/cost-targets";
import { measureThroughput, TENANT_SCALE_LOADS, THROUGHPUT_LOADS, type ThroughputResult, throughputTable } from "./suites/throughput";
import { describeMachine, load1 } from "./support/machine";
import { renderTable, rewriteSection, type Table } from "./support/report";
import { fmt } from "./support/stats";
import { STALL_MS, stalls, TARGET_NAMES, type Target } from "./support/run-session";
import { startWorld, type World } from "./world";

interface Suite {
  name: string;
  reps: number;
  full?: boolean;
  /** Run only when named in `--only`. */
  asked?: boolean;
  run(world: World, reps: number): Promise<{ raw: unknown; tables: Table[] }>;
}

const SUITES: Suite[] = [
  {
    name: "steps",
    reps: 10,
    run: async (w, n) =>
      withTables(await measureStepOverhead(w, n), (r) => [stepOverheadTable(r), requestsTable(r), statementsTable(r), pagesTable(r)]),
  },
  { name: "gateway", reps: 5, run: async (w, n) => withTables(await measureGateway(w, n), (r) => [gatewayTable(r)]) },
  { name: "growth", reps: 3, run: async (w, n) => withTables(await measureGrowth(w, n), growthTables) },
  // 100 × 20 alone: with the steps, what the cost targets need (`--only steps,throughput100`).
  {
    name: "throughput100",
    reps: 2,
    run: async (w, n) => withTables(await measureThroughput(w, n, ONE_HUNDRED), (r) => [throughputTable(r, ONE_HUNDRED)]),
  },
  { name: "throughput", reps: 2, full: true, run: async (w, n) => withTables(await measureThroughput(w, n), (r) => [throughputTable(r)]) },
  // One large tenant beside the bare loop, and many small ones: only when asked (`--only tenant-scale`).
  {
    name: "tenant-scale",
    reps: 1,
    asked: true,
    run: async (w, n) => withTables(await measureThroughput(w, n, tenantScaleLoads()), (r) => [throughputTable(r, tenantScaleLoads())]),
  },
  { name: "memory", reps: 1, full: true, run: async (w, n) => withTables(await measureMemory(w, n), memoryTables) },
  // Last: its counting breakpoints slow the methods they sit in.
  { name: "index", reps: 3, run: async (w, n) => withTables(await measureIndexLoad(w, n), indexLoadTables) },
];

const ONE_HUNDRED = THROUGHPUT_LOADS.filter((load) => load.sessions === 100);

function withTables<R>(raw: R, tables: (raw: R) => Table[]) {
  return { raw, tables: tables(raw) };
}

const { values } = parseArgs({
  options: {
    full: { type: "boolean", default: false },
    profile: { type: "boolean", default: false },
    reps: { type: "string" },
    only: { type: "string" },
    section: { type: "string", default: "latest" },
    "no-write": { type: "boolean", default: false },
    "local-observability": { type: "boolean", default: false },
    "no-meter": { type: "boolean", default: false },
    loads: { type: "string" },
  },
});

/** The tenant-scale loads `--loads` names (all of them without it). */
function tenantScaleLoads() {
  if (values.loads === undefined) return TENANT_SCALE_LOADS;
  const names = values.loads.split(",");
  const loads = TENANT_SCALE_LOADS.filter((load) => names.includes(`${load.sessions}x${load.steps}`));
  if (loads.length !== names.length)
    throw new Error(`--loads names ${values.loads}; the loads: ${TENANT_SCALE_LOADS.map((l) => `${l.sessions}x${l.steps}`).join(", ")}`);
  return loads;
}
const worldOptions = { localObservability: values["local-observability"], meter: !values["no-meter"] };
const repsOverride = values.reps === undefined ? null : Number(values.reps);
if (repsOverride !== null && !(Number.isInteger(repsOverride) && repsOverride >= 1))
  throw new Error(`--reps must be a whole number of 1 or more, not ${values.reps}`);
const only = values.only?.split(",");
const unknown = only?.filter((name) => !SUITES.some((s) => s.name === name)) ?? [];
if (unknown.length > 0) throw new Error(`no suite named ${unknown.join(", ")}; the suites: ${SUITES.map((s) => s.name).join(", ")}`);

const BENCHMARKS = join(PROJECT_ROOT, "BENCHMARKS.md");
const RAW_DIR = join(PROJECT_ROOT, ".tmp", "bench");
const machine = describeMachine();
const startedAt = new Date();
console.log(
  `${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, wrangler ${machine.wrangler}, workerd ${machine.workerd}; load average ${fmt(load1(), 2)}`,
);

if (values.profile) {
  await runProfile({ write: !values["no-write"], benchmarksFile: BENCHMARKS, outDir: RAW_DIR, world: worldOptions });
} else {
  // A full run has 100 × 20 in its throughput suite.
  const chosen = SUITES.filter((s) =>
    only ? only.includes(s.name) : !s.asked && (!s.full || values.full) && !(values.full && s.name === "throughput100"),
  );
  const world = await startWorld(worldOptions);
  const tables: Table[] = [];
  const raw: Record<string, unknown> = {};
  try {
    for (const suite of chosen) {
      const reps = repsOverride ?? suite.reps;
      const load = load1();
      const busy = load > machine.cores ? ` (above ${machine.cores} cores: others are busy, figures may be disturbed)` : "";
      console.log(`${suite.name} (${reps} repetitions), load average ${fmt(load, 2)}${busy}`);
      const suiteStart = Date.now();
      const out = await suite.run(world, reps);
      console.log(`${suite.name} took ${fmt((Date.now() - suiteStart) / 1000, 0)} s`);
      raw[suite.name] = out.raw;
      tables.push(...out.tables);
      for (const table of out.tables) console.log(`\n${renderTable(table)}`);
    }
  } finally {
    await world.dispose();
  }
  const steps = raw.steps as StepOverheadResult | undefined;
  const throughput = (raw.throughput100 ?? raw.throughput) as ThroughputResult | undefined;
  if (steps || throughput) {
    const targets = costTargetsTable(steps ?? null, throughput ?? null);
    tables.unshift(targets);
    console.log(`\n${renderTable(targets)}`);
  }
  const minutes = (Date.now() - startedAt.getTime()) / 60_000;
  console.log(`done in ${fmt(minutes, 1)} minutes`);
  raw.stalls = stalls;
  await mkdir(RAW_DIR, { recursive: true });
  await writeFile(
    join(RAW_DIR, `results-${startedAt.toISOString().replace(/[:.]/g, "-")}.json`),
    JSON.stringify({ startedAt, machine, commit: commitOf(), raw }, replacer, 2),
  );
  if (!values["no-write"]) {
    await rewriteSection(
      BENCHMARKS,
      values.section,
      [
        header(
          minutes,
          chosen.map((s) => s.name),
        ),
        ...tables.map(renderTable),
      ].join("\n"),
    );
    console.log(`rewrote the "${values.section}" section of ${BENCHMARKS}`);
  }
}

function header(minutes: number, suites: string[]): string {
  return [
    `Run on ${startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC at commit \`${commitOf()}\`: ${suites.join(", ")}, in ${fmt(minutes, 1)} minutes.`,
    `Machine: ${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB} GiB; Node ${machine.node}, wrangler ${machine.wrangler}, workerd ${machine.workerd}; 1-minute load average ${fmt(load1(), 2)} at the end.`,
    `wrangler dev's local trace store: ${worldOptions.localObservability ? "on" : "off"}.${worldOptions.meter ? "" : " Cost meter: off (its figures are 0)."}`,
    stallLine(),
    "",
  ].join("\n");
}

/**
 * Runs that stopped making progress (no model call for `STALL_MS`): how many, how each was
 * handled, and what its process showed.
 */
function stallLine(): string {
  const count = (target: Target) => stalls.filter((s) => s.target === target).length;
  const detail = stalls
    .map((s) => `${TARGET_NAMES[s.target]} after ${s.calls} model calls, ${s.handled} (${JSON.stringify(s.state)})`)
    .join("; ");
  const counts = (Object.keys(TARGET_NAMES) as Target[]).map((t) => `${TARGET_NAMES[t]} ${count(t)}`).join(", ");
  return `Runs that stalled (no model call for ${STALL_MS / 1000} s): ${counts}${detail ? `: ${detail}` : ""}.`;
}

/** The commit measured, marked when the working tree's code differs from it. */
function commitOf(): string {
  const git = (...args: string[]) => execFileSync("git", args, { cwd: PROJECT_ROOT, encoding: "utf8" }).trim();
  const dirty = git("status", "--porcelain", "--", "src", "bench").length > 0;
  return `${git("rev-parse", "--short", "HEAD")}${dirty ? " + uncommitted changes" : ""}`;
}

/** Maps (the index counts) are written as objects. */
function replacer(_key: string, value: unknown): unknown {
  return value instanceof Map ? Object.fromEntries(value) : value;
}
