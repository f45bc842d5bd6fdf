/** The tables of `npm run bench -- --profile`: CPU per unit by area and function, system calls, native areas. */
import { STEP_OVERHEAD_STEPS } from "../suites/step-overhead";
import type { Target } from "./run-session";
import type { ProfileSummary } from "./profile-summary";
import type { Table } from "./report";
import { fmt } from "./stats";

/** Units of one run: a model call per step, a tool unit per step, and the final answer. */
const UNITS_PER_RUN = 2 * STEP_OVERHEAD_STEPS + 1;
const TOP_FUNCTIONS = 15;
const PLATFORM_AREAS = ["Session (src/sessions)", "tenant index (src/tenants)"];

export interface Profiled {
  target: Target;
  summary: ProfileSummary;
  /** Runs the JavaScript profile covers; the system calls and the native profile cover one more each. */
  runs: number;
  /** CPU time of the workerd processes over the profiled runs. */
  cpuMs: number;
  /** Storage system calls over one more run, by `syscall object-class`, traced apart (tracing slows the process down). */
  syscalls: Map<string, number> | null;
  /** Native CPU ms by area over one more run. */
  native: Map<string, number> | null;
  file: string;
  load: number;
}

const perUnitMs = (p: Profiled, samples: number) => (samples * p.summary.intervalMs) / (p.runs * UNITS_PER_RUN);

export function profileTables(profiled: Profiled[]): Table[] {
  const platform = profiled.find((p) => p.target === "platform")!;
  const baseline = profiled.find((p) => p.target === "baseline")!;
  return [
    jsAreas(platform, baseline),
    ...nativeAreas(platform, baseline),
    ...syscalls(platform, baseline),
    ...topFunctions(platform, baseline),
  ];
}

function jsAreas(platform: Profiled, baseline: Profiled): Table {
  const samplesIn = (p: Profiled, area: string) => p.summary.areas.find((a) => a.name === area)?.samples ?? 0;
  const areas = [...new Set([...platform.summary.areas, ...baseline.summary.areas].map((a) => a.name))];
  areas.sort((a, b) => samplesIn(platform, b) + samplesIn(baseline, b) - samplesIn(platform, a) - samplesIn(baseline, a));
  const note = (p: Profiled) =>
    `${p.target}: ${p.summary.busySamples.toLocaleString("en-US")} busy samples, one per ${fmt(p.summary.intervalMs, 3)} ms; workerd CPU time ${fmt(p.cpuMs / (p.runs * UNITS_PER_RUN), 2)} ms per unit in all, the profiler's own cost included (load average ${fmt(p.load, 2)}); \`${p.file.replace(/^.*\/\.tmp\//, ".tmp/")}\`.`;
  return {
    title: `JavaScript CPU per unit by area (${platform.runs} runs × ${STEP_OVERHEAD_STEPS} steps, ${UNITS_PER_RUN} units each)`,
    columns: ["area", "bare loop (ms per unit)", "platform (ms per unit)"],
    rows: [
      ...areas.map((area) => [
        area,
        fmt(perUnitMs(baseline, samplesIn(baseline, area)), 3),
        fmt(perUnitMs(platform, samplesIn(platform, area)), 3),
      ]),
      [
        "**JavaScript in all**",
        `**${fmt(perUnitMs(baseline, baseline.summary.busySamples), 3)}**`,
        `**${fmt(perUnitMs(platform, platform.summary.busySamples), 3)}**`,
      ],
    ],
    notes: [
      "Self time of the samples in each area times the sampling period, over the units run; idle samples left out. A built-in (a storage call, `fetch`, JSON) is charged to the project function that called it. The profile covers JavaScript in the Worker's isolate, where the session objects and the tenant index run too; the profiler slows JavaScript down, so read the shares here and the native table for absolute costs.",
      note(platform),
      note(baseline),
    ],
  };
}

function nativeAreas(platform: Profiled, baseline: Profiled): Table[] {
  if (!platform.native || !baseline.native) return [];
  const ms = (p: Profiled, area: string) => (p.native!.get(area) ?? 0) / UNITS_PER_RUN;
  const total = (p: Profiled) => [...p.native!.values()].reduce((a, b) => a + b, 0) / UNITS_PER_RUN;
  const areas = [...new Set([...platform.native.keys(), ...baseline.native.keys()])].sort((a, b) => ms(platform, b) - ms(platform, a));
  return [
    {
      title: `Native CPU per unit by area (perf, 1 run × ${STEP_OVERHEAD_STEPS} steps)`,
      columns: ["area", "bare loop (ms per unit)", "platform (ms per unit)"],
      rows: [
        ...areas.map((area) => [area, fmt(ms(baseline, area), 2), fmt(ms(platform, area), 2)]),
        ["**in all**", `**${fmt(total(baseline), 2)}**`, `**${fmt(total(platform), 2)}**`],
      ],
      notes: ["`perf record` on the workerd processes during one more run, self time grouped by symbol; V8 includes the JavaScript above."],
    },
  ];
}

function syscalls(platform: Profiled, baseline: Profiled): Table[] {
  if (!platform.syscalls || !baseline.syscalls) return [];
  const keys = [...new Set([...platform.syscalls.keys(), ...baseline.syscalls.keys()])].sort();
  const perUnit = (p: Profiled, key: string) => fmt((p.syscalls!.get(key) ?? 0) / UNITS_PER_RUN, 1);
  const total = (p: Profiled, call: string) =>
    fmt([...p.syscalls!].filter(([key]) => key.startsWith(`${call} `)).reduce((sum, [, n]) => sum + n, 0) / UNITS_PER_RUN, 1);
  const calls = [...new Set(keys.map((key) => key.split(" ")[0]!))];
  return [
    {
      title: `Storage system calls per unit, by the object whose database they touch (strace, 1 run × ${STEP_OVERHEAD_STEPS} steps)`,
      columns: ["system call", "object", "bare loop", "platform"],
      rows: calls.flatMap((call) => [
        ...keys
          .filter((key) => key.startsWith(`${call} `))
          .map((key) => [`\`${call}\``, key.split(" ")[1]!, perUnit(baseline, key), perUnit(platform, key)]),
        [`\`${call}\``, "**in all**", `**${total(baseline, call)}**`, `**${total(platform, call)}**`],
      ]),
      notes: [
        '`strace -f -y` on the workerd processes during one more run, each call charged to the class whose SQLite file it touched ("other": files of no Durable Object). Each commit of an object\'s database writes its pages to the write-ahead log and syncs it: `fsync` counts commits.',
      ],
    },
  ];
}

function topFunctions(platform: Profiled, baseline: Profiled): Table[] {
  const topOf = (p: Profiled, pick: (area: string) => boolean): string[][] =>
    p.summary.functions
      .filter((f) => pick(f.area))
      .slice(0, TOP_FUNCTIONS)
      .map((f) => [`\`${f.name}\``, f.area, fmt(perUnitMs(p, f.samples), 3), `${fmt((100 * f.samples) / p.summary.busySamples, 1)} %`]);
  const columns = ["function (← its caller in the project)", "area", "ms per unit", "share of JavaScript"];
  const inclusive = platform.summary.inclusive
    .filter((f) => PLATFORM_AREAS.includes(f.area))
    .slice(0, TOP_FUNCTIONS)
    .map((f) => [
      `\`${f.name}\``,
      f.area,
      fmt(perUnitMs(platform, f.samples), 3),
      `${fmt((100 * f.samples) / platform.summary.busySamples, 1)} %`,
    ]);
  return [
    {
      title: "Total JavaScript time of the session object's and the tenant index's functions, callees included (platform)",
      columns: ["function", "area", "ms per unit", "share of JavaScript"],
      rows: inclusive,
    },
    {
      title: "Top JavaScript self time in the session object and the tenant index (platform)",
      columns,
      rows: topOf(platform, (area) => PLATFORM_AREAS.includes(area)),
    },
    { title: "Top JavaScript self time anywhere (platform)", columns, rows: topOf(platform, () => true) },
    { title: "Top JavaScript self time anywhere (bare loop)", columns, rows: topOf(baseline, () => true) },
  ];
}
