/**
 * Reads a V8 CPU profile of the Worker: each sample's function mapped back through wrangler's
 * source map to the project's files, then self time grouped by area (the session object, the tenant
 * index, the gateway, libraries, the runtime) and by function. Time spent in a built-in (a
 * storage call, `JSON.parse`, `fetch`) is charged to the project function that called it.
 */
import { SourceMap, type SourceMapPayload } from "node:module";
import { basename, dirname, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { median } from "./stats";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

export interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Cost {
  name: string;
  area: string;
  samples: number;
}

export interface ProfileSummary {
  /** Samples outside "(idle)". */
  busySamples: number;
  /** The sampling period in ms (see `samplingPeriodMs`). */
  intervalMs: number;
  areas: Cost[];
  /** Self time: samples in the function itself (or a built-in it called). */
  functions: Cost[];
  /** Total time: samples with the project function anywhere on the stack. */
  inclusive: Cost[];
}

const RUNTIME_FRAMES: Record<string, string> = {
  "(program)": "runtime: outside JavaScript",
  "(root)": "runtime: outside JavaScript",
  "(garbage collector)": "runtime: garbage collection",
};
const BUILTINS = "runtime: built-ins, not called from the project";
/** The benchmark builds' cost meter, whose wrappers a built-in's cost passes through. */
const METER_FILE = "bench/direct/cost-meter.ts";
/** Gaps between samples longer than this are idle time, when workerd takes no samples. */
const BUSY_GAP_US = 1_000;

/** Which area a project file belongs to. */
export function areaOf(file: string): string {
  const lib = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1];
  if (lib === "wrangler" || lib === "miniflare") return "wrangler dev shims";
  if (lib) return `library: ${lib}`;
  if (file.startsWith("src/sessions/")) return "Session (src/sessions)";
  if (file.startsWith("src/tenants/")) return "tenant index (src/tenants)";
  if (file.startsWith("src/api/")) return "gateway (src/api)";
  if (file.startsWith("src/auth/")) return "auth (src/auth)";
  if (file.startsWith("src/")) return "platform, other (src)";
  if (file.startsWith("bench/baseline/")) return "bare loop (bench/baseline)";
  if (file.startsWith("bench/")) return "benchmark build (bench)";
  return "wrangler dev shims";
}

/**
 * The sampling period: the median gap between samples within busy stretches. workerd samples
 * only while the isolate runs, so the gaps that span idle time (most of them on a light load)
 * say nothing about the period.
 */
export function samplingPeriodMs(profile: CpuProfile): number {
  return median(profile.timeDeltas.filter((d) => d > 0 && d < BUSY_GAP_US)) / 1000;
}

/**
 * `bundle`: the path of wrangler's bundle, which the profile names by its base name; `root`: the
 * project's directory, which file names are given relative to.
 */
export function summarizeProfile(profile: CpuProfile, bundle: string, map: SourceMapPayload | null, root: string): ProfileSummary {
  const sourceMap = map ? new SourceMap(map) : null;
  const bundleNames = new Set([bundle, basename(bundle), pathToFileURL(bundle).href]);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  /** The project function a frame is in, when it is in the bundle and the map knows it. */
  const own = (frame: CallFrame): { name: string; area: string } | null => {
    if (!sourceMap || !bundleNames.has(frame.url)) return null;
    const entry = sourceMap.findEntry(frame.lineNumber, frame.columnNumber);
    if (!("originalSource" in entry)) return null;
    const source = entry.originalSource.startsWith("file:")
      ? fileURLToPath(entry.originalSource)
      : resolve(dirname(bundle), entry.originalSource);
    const file = relative(root, source);
    return { name: `${frame.functionName || "(anonymous)"} (${file}:${entry.originalLine + 1})`, area: areaOf(file) };
  };
  const located = new Map<number, { name: string; area: string }>();
  const locate = (id: number): { name: string; area: string } => {
    const known = located.get(id);
    if (known) return known;
    const frame = byId.get(id)!.callFrame;
    let where = RUNTIME_FRAMES[frame.functionName] ? { name: frame.functionName, area: RUNTIME_FRAMES[frame.functionName]! } : own(frame);
    if (!where) {
      // A built-in: charged to the nearest caller in the project.
      let caller = parent.get(id);
      let callerWhere = null;
      // The cost meter's wrappers stand between a project function and the storage call it made.
      while (caller !== undefined && (!(callerWhere = own(byId.get(caller)!.callFrame)) || callerWhere.name.includes(METER_FILE)))
        caller = parent.get(caller);
      if (caller === undefined) callerWhere = null;
      const fn = `${frame.functionName || "(anonymous)"} (${frame.url ? basename(frame.url) : "built-in"})`;
      where = callerWhere ? { name: `${fn} ← ${callerWhere.name}`, area: callerWhere.area } : { name: fn, area: BUILTINS };
    }
    located.set(id, where);
    return where;
  };

  const hits = new Map<number, number>();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const areas = new Map<string, number>();
  const functions = new Map<string, Cost>();
  const inclusive = new Map<string, Cost>();
  const add = (into: Map<string, Cost>, where: { name: string; area: string }, samples: number) => {
    const cost = into.get(where.name) ?? { ...where, samples: 0 };
    cost.samples += samples;
    into.set(where.name, cost);
  };
  let busy = 0;
  for (const [id, samples] of hits) {
    if (byId.get(id)!.callFrame.functionName === "(idle)") continue;
    busy += samples;
    const where = locate(id);
    areas.set(where.area, (areas.get(where.area) ?? 0) + samples);
    add(functions, where, samples);
    const onStack = new Map<string, { name: string; area: string }>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const mine = own(byId.get(at)!.callFrame);
      if (mine) onStack.set(mine.name, mine);
    }
    for (const frame of onStack.values()) add(inclusive, frame, samples);
  }
  const sorted = (costs: Iterable<Cost>) => [...costs].sort((a, b) => b.samples - a.samples);
  return {
    busySamples: busy,
    intervalMs: samplingPeriodMs(profile),
    areas: sorted([...areas].map(([area, samples]) => ({ name: area, area, samples }))),
    functions: sorted(functions.values()),
    inclusive: sorted(inclusive.values()),
  };
}
