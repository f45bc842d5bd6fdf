import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { callsBetween, methodLines } from "../../../bench/support/call-counter";
import { nativeArea, parsePerfReport } from "../../../bench/support/native-profile";
import { rewriteSection } from "../../../bench/support/report";
import { parseStorageTrace } from "../../../bench/support/syscalls";

describe("finding methods in wrangler's bundle", () => {
  const bundle = [
    "var other = 1;",
    "var TenantIndex = class extends DurableObject {",
    "  #binding;",
    "  constructor(ctx, env) {",
    "  }",
    "  async admitRequest(tenantId, input) {",
    "    return admit(input);",
    "  }",
    "  counts(tenantId) {",
    "  }",
    "  async #enter(tenantId) {",
    "  }",
    "};",
    "  async notInTheClass() {",
  ].join("\n");

  it("lists the public methods of the class with their 0-based lines", () => {
    expect([...methodLines(bundle, { name: "TenantIndex", methods: "all" })]).toEqual([
      ["TenantIndex.admitRequest", 5],
      ["TenantIndex.counts", 8],
    ]);
    expect([...methodLines(bundle, { name: "TenantIndex", methods: ["counts"] })]).toEqual([["TenantIndex.counts", 8]]);
  });

  it("finds a class esbuild renamed because another module declares its name", () => {
    const renamed =
      bundle.replace("var TenantIndex = class", "var TenantIndex2 = class") +
      '\nvar TenantIndex = meterClass(TenantIndex2, "TenantIndex");';
    expect([...methodLines(renamed, { name: "TenantIndex", methods: ["counts"] })]).toEqual([["TenantIndex.counts", 8]]);
  });

  it("fails loudly when the class is not in the bundle", () => {
    expect(() => methodLines(bundle, { name: "SessionObject", methods: "all" })).toThrow(/SessionObject not found/);
  });

  it("counts calls between two snapshots", () => {
    const diff = callsBetween(
      new Map([
        ["a", 2],
        ["b", 1],
      ]),
      new Map([
        ["a", 5],
        ["b", 1],
        ["c", 1],
      ]),
    );
    expect([...diff]).toEqual([
      ["a", 3],
      ["c", 1],
    ]);
  });
});

describe("reading strace and perf output", () => {
  it("charges each storage call to the class whose database it touched", () => {
    const text = [
      "1201 fsync(23</tmp/x/state/v3/do/agent-platform-SessionObject/ab.sqlite-wal>) = 0",
      '1201 pwrite64(23</tmp/x/state/v3/do/agent-platform-SessionObject/ab.sqlite-wal>, "...", 4096, 0) = 4096',
      "[pid  1202] fsync(31</tmp/x/state/v3/do/agent-platform-TenantIndex/cd.sqlite-wal>) = 0",
      "1201 fsync(40</tmp/x/state/v3/cache/db.sqlite>) = 0",
      "1201 +++ exited with 0 +++",
    ].join("\n");
    expect(Object.fromEntries(parseStorageTrace(text))).toEqual({
      "fsync SessionObject": 1,
      "pwrite64 SessionObject": 1,
      "fsync TenantIndex": 1,
      "fsync other": 1,
    });
  });

  it("groups perf's self time into areas, in milliseconds", () => {
    const text = [
      "# Event count (approx.): 2000000000",
      "    50.00%  [kernel.kallsyms]  [k] pvm_irq_enable",
      "    25.00%  workerd            [.] sqlite3VdbeExec",
      "    12.50%  workerd            [.] v8::internal::StringTable::LookupString",
      "    12.50%  workerd            [.] kj::_::TransformPromiseNode<void>::getImpl(kj::_::ExceptionOrValue&)",
    ].join("\n");
    expect(Object.fromEntries(parsePerfReport(text))).toEqual({
      [nativeArea("[kernel.kallsyms]", "x")]: 1000,
      SQLite: 500,
      [nativeArea("workerd", "v8::x")]: 250,
      [nativeArea("workerd", "kj::x")]: 250,
    });
  });
});

describe("BENCHMARKS.md sections", () => {
  it("replaces what lies between a section's markers and appends a missing section", async () => {
    const dir = await mkdtemp(join(tmpdir(), "bench-report-"));
    try {
      const file = join(dir, "B.md");
      await writeFile(file, "# Title\n<!-- bench:latest:start -->\nold\n<!-- bench:latest:end -->\nafter\n");
      await rewriteSection(file, "latest", "new");
      await rewriteSection(file, "profile", "profiled");
      expect(await readFile(file, "utf8")).toBe(
        "# Title\n<!-- bench:latest:start -->\nnew\n<!-- bench:latest:end -->\nafter\n\n<!-- bench:profile:start -->\nprofiled\n<!-- bench:profile:end -->\n",
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
