/**
 * `npm run bench -- --profile`: where the CPU time of a unit goes, on the platform and on the
 * bare loop, over 50-step runs. A JavaScript CPU profile through each `wrangler dev`'s inspector
 * (workerd answers `Profiler.start`/`stop` itself, for the Worker's isolate, which also runs its
 * Durable Objects), mapped back to the sources; then, where installed, the runtime's system calls
 * (`strace`) and a native profile (`perf`), each over one more run, since most of a unit's CPU
 * time is spent outside JavaScript. Writes the `.cpuprofile` files (open them in Chrome
 * DevTools) and the summary to .tmp/bench/, and the summary to BENCHMARKS.md.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import type { SourceMapPayload } from "node:module";
import { join } from "node:path";
import type { ApiClient } from "../test/e2e/support/api-client";
import { PROJECT_ROOT } from "../test/e2e/support/environment";
import { uniqueName } from "../test/e2e/support/stack";
import { bundlePath } from "./support/call-counter";
import { DevToolsSession } from "./support/cdp";
import { load1, workerdCpuMs, workerdPids } from "./support/machine";
import { perfAvailable, profileNative } from "./support/native-profile";
import { type CpuProfile, summarizeProfile } from "./support/profile-summary";
import { type Profiled, profileTables } from "./support/profile-tables";
import { renderTable, rewriteSection } from "./support/report";
import { straceAvailable, traceStorage } from "./support/syscalls";
import { runSession, type Target } from "./support/run-session";
import { STEP_OVERHEAD_STEPS } from "./suites/step-overhead";
import { startWorld, type World, type WorldOptions } from "./world";

/** Sessions profiled one after another, for enough samples. */
const PROFILED_RUNS = 3;
const WARMUP_STEPS = 10;
/** Asked for; workerd on this machine samples about every 0.22 ms at best. */
const SAMPLING_INTERVAL_US = 100;

export interface ProfileOptions {
  write: boolean;
  benchmarksFile: string;
  outDir: string;
  world: WorldOptions;
}

export async function runProfile(options: ProfileOptions): Promise<void> {
  await mkdir(options.outDir, { recursive: true });
  const world = await startWorld(options.world);
  const profiled: Profiled[] = [];
  try {
    const client = await world.client(uniqueName("bench-profile"));
    for (const target of ["platform", "baseline"] as const) profiled.push(await profileTarget(world, client, target, options.outDir));
  } finally {
    await world.dispose();
  }
  const text = profileTables(profiled).map(renderTable).join("\n");
  console.log(`\n${text}`);
  await writeFile(join(options.outDir, "profile.md"), text);
  if (options.write)
    await rewriteSection(
      options.benchmarksFile,
      "profile",
      `Profiled on ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC.\n\n${text}`,
    );
}

async function profileTarget(world: World, client: ApiClient, target: Target, outDir: string): Promise<Profiled> {
  const proc = target === "platform" ? world.platform : world.baseline;
  const run = async () => void (await runSession(world, target, STEP_OVERHEAD_STEPS, client));
  await runSession(world, target, WARMUP_STEPS, client);

  const inspector = await DevToolsSession.connect(proc.inspectorUrl);
  const load = load1();
  const cpuBefore = workerdCpuMs(proc.processGroup);
  await inspector.send("Profiler.enable");
  await inspector.send("Profiler.setSamplingInterval", { interval: SAMPLING_INTERVAL_US });
  await inspector.send("Profiler.start");
  for (let i = 0; i < PROFILED_RUNS; i++) await run();
  const { profile } = await inspector.send<{ profile: CpuProfile }>("Profiler.stop");
  const cpuMs = workerdCpuMs(proc.processGroup) - cpuBefore;
  inspector.close();
  const file = join(outDir, `${target}.cpuprofile`);
  await writeFile(file, JSON.stringify(profile));
  const bundle = bundlePath(proc);
  const map = JSON.parse(await readFile(`${bundle}.map`, "utf8").catch(() => "null")) as SourceMapPayload | null;

  const pids = workerdPids(proc.processGroup);
  const syscalls = straceAvailable() ? await traceStorage(pids, outDir, run) : null;
  const native = perfAvailable() ? await profileNative(pids, outDir, target, run) : null;
  console.log(`  profiled the ${target}: ${file}`);
  return {
    target,
    summary: summarizeProfile(profile, bundle, map, PROJECT_ROOT),
    runs: PROFILED_RUNS,
    cpuMs,
    syscalls,
    native,
    file,
    load,
  };
}
