import { describe, expect, it } from "vitest";
import { areaOf, type CpuProfile, summarizeProfile } from "../../../bench/support/profile-summary";

/** A source map of a two-line bundle: line 0 from src/sessions/object/engine/engine.ts:1, line 1 from src/tenants/x.ts:1. */
const MAP = {
  version: 3,
  file: "worker.js",
  sourceRoot: "",
  sources: ["../../../src/sessions/object/engine/engine.ts", "../../../src/tenants/x.ts"],
  sourcesContent: [],
  names: [],
  mappings: "AAAA;ACAA",
};
const ROOT = "/project";
const BUNDLE = "/project/.wrangler/tmp/dev-1/worker.js";

const frame = (functionName: string, url = "", lineNumber = -1) => ({ functionName, url, lineNumber, columnNumber: 0 });

const PROFILE: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame("(root)"), children: [2, 5, 6] },
    { id: 2, callFrame: frame("report", "worker.js", 0), children: [3] },
    { id: 3, callFrame: frame("exec"), children: [] },
    { id: 5, callFrame: frame("(idle)"), children: [] },
    { id: 6, callFrame: frame("recordSessionReport", "worker.js", 1), children: [] },
  ],
  startTime: 0,
  endTime: 10_000,
  // Busy stretches 200 µs apart; the 5 ms gaps are idle time and say nothing about the period.
  samples: [2, 3, 3, 5, 6, 6, 3],
  timeDeltas: [200, 200, 200, 5_000, 200, 200, 5_000],
};

describe("CPU profile summary", () => {
  const summary = summarizeProfile(PROFILE, BUNDLE, MAP, ROOT);

  it("maps functions back to their source files and areas", () => {
    expect(summary.functions.find((f) => f.name.startsWith("recordSessionReport"))).toEqual({
      name: "recordSessionReport (src/tenants/x.ts:1)",
      area: "tenant index (src/tenants)",
      samples: 2,
    });
  });

  it("charges a built-in to the project function that called it", () => {
    expect(summary.functions.find((f) => f.name.startsWith("exec"))).toEqual({
      name: "exec (built-in) ← report (src/sessions/object/engine/engine.ts:1)",
      area: "Session (src/sessions)",
      samples: 3,
    });
    expect(summary.areas[0]).toEqual({ name: "Session (src/sessions)", area: "Session (src/sessions)", samples: 4 });
  });

  it("leaves idle samples out and takes the period from busy stretches", () => {
    expect(summary.busySamples).toBe(6);
    expect(summary.intervalMs).toBe(0.2);
  });

  it("without a source map, charges everything to the runtime", () => {
    const bare = summarizeProfile(PROFILE, BUNDLE, null, ROOT);
    expect(bare.areas.map((a) => a.name)).toEqual(["runtime: built-ins, not called from the project"]);
  });

  it("sorts project files and libraries into areas", () => {
    expect(areaOf("src/api/sessions/get.ts")).toBe("gateway (src/api)");
    expect(areaOf("node_modules/@hono/zod-openapi/dist/index.js")).toBe("library: @hono/zod-openapi");
    expect(areaOf("node_modules/wrangler/templates/middleware.ts")).toBe("wrangler dev shims");
    expect(areaOf("bench/baseline/bare-loop.ts")).toBe("bare loop (bench/baseline)");
  });
});

describe("CPU profile summary, callees included", () => {
  it("charges every sample to each project function on its stack, once", () => {
    const summary = summarizeProfile(PROFILE, BUNDLE, MAP, ROOT);
    expect(summary.inclusive.map((f) => [f.name, f.samples])).toEqual([
      ["report (src/sessions/object/engine/engine.ts:1)", 4],
      ["recordSessionReport (src/tenants/x.ts:1)", 2],
    ]);
  });
});

describe("CPU profile summary, through the cost meter", () => {
  it("charges a storage call to the project function beyond the meter's wrapper", () => {
    const map = { ...MAP, sources: [...MAP.sources, "../../../bench/direct/cost-meter.ts"], mappings: "AAAA;ACAA;ACAA" };
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame("(root)"), children: [2] },
        { id: 2, callFrame: frame("report", "worker.js", 0), children: [3] },
        { id: 3, callFrame: frame("value", "worker.js", 2), children: [4] },
        { id: 4, callFrame: frame("exec"), children: [] },
      ],
      startTime: 0,
      endTime: 1_000,
      samples: [4, 4, 3],
      timeDeltas: [200, 200, 200],
    };
    const summary = summarizeProfile(profile, BUNDLE, map, ROOT);
    expect(summary.functions.find((f) => f.name.startsWith("exec"))).toMatchObject({
      name: "exec (built-in) ← report (src/sessions/object/engine/engine.ts:1)",
      samples: 2,
    });
    expect(summary.functions.find((f) => f.name.startsWith("value"))).toMatchObject({ area: "benchmark build (bench)", samples: 1 });
  });
});
