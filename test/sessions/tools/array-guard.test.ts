/**
 * run_code's array built-ins: the same answers as the interpreter's own, and a call over a huge
 * array-like (which no interrupt check reaches inside) paid for with the run's work limit first,
 * and not made when it does not fit.
 */
import { describe, expect, it } from "vitest";
import { runCodeLimits } from "../../../src/sessions/object/tools/builtin/run-code";
import { runJavaScript } from "../../../src/sessions/object/tools/sandbox/run-js";

/** The production limits but for the wall clock, which stands still there: the work limit alone must stop these. */
const WORK_ONLY = { ...runCodeLimits(8_000), timeoutMs: Number.POSITIVE_INFINITY };

const CASES = [
  `[1, 2, 3].indexOf(2)`,
  `[1, 2, 3].lastIndexOf(3, -2)`,
  `[1, NaN].includes(NaN)`,
  `Array.prototype.indexOf.call({ length: 3, 1: "x" }, "x")`,
  `Array.prototype.slice.call({ length: 3, 0: "a", 2: "c" })`,
  `Array.prototype.join.call({ length: 2, 0: 1, 1: 2 }, "+")`,
  `[3, 1, 2].sort()`,
  `[3, 1, 2].toSorted((a, b) => b - a)`,
  `[1, [2, [3, [4]]]].flat(Infinity)`,
  `[1, 2].flatMap((x) => [x, [x]])`,
  `[1].concat([2], 3, { length: 1, 0: 4, [Symbol.isConcatSpreadable]: true })`,
  `Array.prototype.concat.call({ a: 1 }, [2])`,
  `[1, 2, 3, 4].copyWithin(0, 2)`,
  `[1, 2, 3].reverse()`,
  `(() => { const a = [1, 2, 3]; a.splice(1, 1, "x", "y"); return a; })()`,
  `[1, 2, 3].map((x) => x * 2).filter((x) => x > 2).reduce((s, x) => s + x, 0)`,
  `Array.prototype.every.call("abc", (c) => c < "d")`,
  `String([1, [2, 3]])`,
  `Array.prototype.map.call(new Proxy([1, 2], {}), (x) => x + 1)`,
  `Array.prototype.indexOf.length`,
  `[].indexOf.name`,
  `new Proxy([], {}) instanceof Array`,
  `Array.prototype.indexOf.call(null)`,
];

describe("run_code array built-ins", () => {
  it("answer as the interpreter's own methods do", async () => {
    const code = `return [${CASES.map((c) => `(() => { try { return ${c}; } catch (e) { return "throws " + e.name; } })()`).join(", ")}];`;
    const outcome = await runJavaScript(code, WORK_ONLY);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(JSON.parse(outcome.resultJson!)).toEqual([
      1,
      -1,
      true,
      1,
      ["a", null, "c"],
      "1+2",
      [1, 2, 3],
      [3, 2, 1],
      [1, 2, 3, 4],
      [1, [1], 2, [2]],
      [1, 2, 3, 4],
      [{ a: 1 }, 2],
      [3, 4, 3, 4],
      [3, 2, 1],
      [1, "x", "y", 3],
      10,
      true,
      "1,2,3",
      [2, 3],
      1,
      "indexOf",
      true,
      "throws TypeError",
    ]);
  });

  it("reads a length once: one that would read larger the second time is not looked at again", async () => {
    const code =
      "let reads = 0; const o = { get length() { return reads++ === 0 ? 1 : 2 ** 28; }, 0: 7 }; return [Array.prototype.includes.call(o, 7), reads];";
    expect(await runJavaScript(code, WORK_ONLY)).toMatchObject({ ok: true, resultJson: "[true,1]" });
  });

  it.each([
    ["one call over a huge array-like", "return Array.prototype.indexOf.call({ length: 2 ** 28 }, 1);"],
    ["a sparse array", "const a = []; a.length = 2 ** 28; return a.lastIndexOf(1);"],
    [
      "many smaller calls in a loop",
      "let n = 0; for (let i = 0; i < 100000; i++) n += Array.prototype.indexOf.call({ length: 2 ** 16 }, 1); return n;",
    ],
    [
      "a proxy's length",
      "return Array.prototype.includes.call(new Proxy({}, { get: (t, k) => (k === 'length' ? 2 ** 28 : undefined) }), 1);",
    ],
    ["nested arrays flat() opens", "const a = []; a.length = 2 ** 28; return [[a]].flat(2).length;"],
    ["arrays a flatMap mapper makes", "const a = []; a.length = 2 ** 28; return [1].flatMap(() => a).length;"],
    ["a caught refusal, again and again", "const a = []; a.length = 2 ** 28; for (;;) { try { a.includes(1); } catch {} }"],
  ])("stops %s by the work limit", async (_, code) => {
    // Unguarded, each held the interpreter for 15 s or more, or for good.
    expect(await runJavaScript(code, WORK_ONLY)).toMatchObject({ ok: false, stop: "time_limit" });
  });
});
