import { describe, expect, it } from "vitest";
import { costBetween, countsPer1000Steps, requestsPer1000Steps, statementsPerStep } from "../../../bench/support/cost";
import { billOf, keyName, kvRows, type MeterSnapshot, PRICES, statementKind, statementName } from "../../../bench/support/cost-rules";
import { costTargets, costTargetsTable, medianRatio } from "../../../bench/suites/cost-targets";

describe("rows a key-value or alarm call is billed as", () => {
  it("reads a row per key asked and per entry listed, at least one for a list", () => {
    expect(kvRows("get", ["run"], undefined)).toEqual({ read: 1, written: 0 });
    expect(kvRows("get", [["a", "b", "c"]], new Map())).toEqual({ read: 3, written: 0 });
    expect(
      kvRows(
        "list",
        [{ prefix: "x" }],
        new Map([
          ["x1", 1],
          ["x2", 2],
        ]),
      ),
    ).toEqual({ read: 2, written: 0 });
    expect(kvRows("list", [{ prefix: "x" }], [])).toEqual({ read: 1, written: 0 });
  });

  it("writes a row per key put or deleted, and one per setAlarm or deleteAlarm; getAlarm is free", () => {
    expect(kvRows("put", ["run", { a: 1 }], undefined)).toEqual({ read: 0, written: 1 });
    expect(kvRows("put", [{ a: 1, b: 2 }], undefined)).toEqual({ read: 0, written: 2 });
    expect(kvRows("delete", [["a", "b"]], 2)).toEqual({ read: 0, written: 2 });
    expect(kvRows("delete", ["a"], false)).toEqual({ read: 0, written: 1 });
    expect(kvRows("setAlarm", [Date.now()], undefined)).toEqual({ read: 0, written: 1 });
    expect(kvRows("deleteAlarm", [], undefined)).toEqual({ read: 0, written: 1 });
    expect(kvRows("getAlarm", [], null)).toEqual({ read: 0, written: 0 });
  });
});

describe("names in the breakdown", () => {
  it("puts a statement on one line and folds its placeholders", () => {
    expect(statementName("INSERT INTO t (a, b, c)\n   VALUES (?, ?,?)")).toBe("INSERT INTO t (a, b, c) VALUES (?, …)");
    expect(statementName(`SELECT ${"x, ".repeat(100)}y FROM t`)).toHaveLength(158);
  });

  it("names an insert by its kind, role or type when its first value is one", () => {
    expect(statementKind("INSERT INTO steps (kind) VALUES (?)", "tools")).toBe("INSERT INTO steps (kind) VALUES (?) [tools]");
    expect(statementKind("INSERT INTO tool_calls (id) VALUES (?)", "toolu_bench_0")).toBe("INSERT INTO tool_calls (id) VALUES (?)");
    expect(statementKind("UPDATE t SET a = ?", "done")).toBe("UPDATE t SET a = ?");
    expect(statementKind("INSERT INTO t (n) VALUES (?)", 3)).toBe("INSERT INTO t (n) VALUES (?)");
  });

  it("folds numbers and ids in keys", () => {
    expect(keyName("run")).toBe("run");
    expect(keyName("applied:req_0123456789abcdef0123")).toBe("applied:…");
    expect(keyName("event:42")).toBe("event:#");
  });
});

describe("the bill", () => {
  it("prices each part at the published rates", () => {
    const bill = billOf({ doRequests: 1e6, workerRequests: 1e6, activeSeconds: 1e6, rowsRead: 1e6, rowsWritten: 1e6, storedBytes: 1e9 });
    expect(bill.requests).toBeCloseTo(PRICES.doRequestsPerMillion + PRICES.workerRequestsPerMillion);
    // The page's example: 1,000,000 s × 128 MB / 1 GB = 128,000 GB-s.
    expect(bill.duration).toBeCloseTo((128_000 * 12.5) / 1e6);
    expect(bill.rowsRead).toBeCloseTo(0.001);
    expect(bill.rowsWritten).toBeCloseTo(1);
    expect(bill.storage).toBeCloseTo(0.2);
    expect(bill.total).toBeCloseTo(bill.requests + bill.duration + bill.rowsRead + bill.rowsWritten + bill.storage);
  });
});

const snapshot = (over: Partial<MeterSnapshot> = {}): MeterSnapshot => ({
  workerRequests: 0,
  unattributed: 0,
  classes: {},
  statements: {},
  methods: {},
  inFlight: 0,
  quietMs: 1000,
  ...over,
});
const tally = (requests: number, rowsWritten: number) => ({
  objects: 1,
  requests,
  alarms: requests / 2,
  activeMs: requests * 10,
  rowsRead: rowsWritten * 2,
  rowsWritten,
});

describe("a run's cost from two readings of the meter", () => {
  const before = snapshot({
    workerRequests: 3,
    classes: { A: tally(10, 100), B: tally(4, 4) },
    statements: { A: { "INSERT x": { calls: 5, rowsRead: 0, rowsWritten: 10 } } },
    methods: { A: { alarm: 5 } },
  });
  const after = snapshot({
    workerRequests: 4,
    classes: { A: tally(30, 160), B: tally(4, 4), C: tally(2, 1) },
    statements: {
      A: { "INSERT x": { calls: 15, rowsRead: 0, rowsWritten: 30 }, "kv.put run": { calls: 20, rowsRead: 0, rowsWritten: 25 } },
    },
    methods: { A: { alarm: 15, get: 10 } },
  });
  const cost = costBetween(before, after);

  it("sums what changed over every class, and leaves out the classes the run did not touch", () => {
    expect(cost.requests).toBe(22);
    expect(cost.rowsWritten).toBe(61);
    expect(cost.rowsRead).toBe(122);
    expect(cost.workerRequests).toBe(1);
    expect(Object.keys(cost.byClass).sort()).toEqual(["A", "C"]);
    expect(cost.methods).toEqual({ A: { alarm: 10, get: 10 } });
  });

  it("refuses a run with storage calls it could not charge to an object", () => {
    expect(() => costBetween(before, { ...after, unattributed: 1 })).toThrow(/could not charge 1 storage call/);
  });

  it("scales to 1,000 steps and breaks rows down per step", () => {
    expect(countsPer1000Steps(cost, 10, 5000)).toMatchObject({ doRequests: 2200, rowsWritten: 6100, storedBytes: 500_000 });
    const rows = statementsPerStep([cost, cost], 10);
    expect(rows.map((r) => r.name)).toEqual(["kv.put run", "INSERT x"]);
    expect(rows[0]).toMatchObject({ className: "A", callsPerStep: 2, rowsWrittenPerStep: 2.5 });
    expect(requestsPer1000Steps([cost], 10)).toEqual([
      { className: "A", method: "alarm", per1000: 1000 },
      { className: "A", method: "get", per1000: 1000 },
    ]);
  });
});

describe("the cost targets", () => {
  it("takes the median of run-by-run ratios", () => {
    expect(medianRatio([2, 4, 9], [1, 2, 3])).toBe(2);
    expect(medianRatio([], [])).toBeNull();
  });

  it("says met or not from the run, and not measured without it", () => {
    const run = (stepMs: number, rowsWritten: number) =>
      ({
        stepMs,
        cpuPerStepMs: stepMs,
        storedBytes: 500,
        cost: {
          requests: 100,
          alarms: 100,
          activeMs: 100,
          rowsRead: 100,
          rowsWritten,
          workerRequests: 1,
          byClass: {},
          statements: {},
          methods: {},
        },
      }) as never;
    const steps = { platform: [run(12, 300)], baseline: [run(10, 100)], streaming: [run(11, 100)] };
    const targets = costTargets(steps, null);
    expect(targets.find((t) => t.name === "time per step")).toMatchObject({ ratio: 1.2, limit: 1.25 });
    expect(targets.find((t) => t.name === "rows written per step")?.ratio).toBe(3);
    expect(targets.find((t) => t.name.startsWith("100 × 20"))?.ratio).toBeNull();
    const table = costTargetsTable(steps, null);
    expect(table.rows.find((r) => r[0] === "time per step")?.[5]).toBe("yes");
    expect(table.rows.find((r) => r[0] === "rows written per step")?.[5]).toBe("**no**");
    expect(table.rows.find((r) => r[0]!.startsWith("100 × 20"))?.[5]).toBe("—");
  });
});
