/**
 * run_code's string searches: the same answers as the interpreter's own methods, and a large
 * search that no interrupt check could stop runs where the work limit stops it.
 */
import { describe, expect, it } from "vitest";
import { RUN_CODE_NATIVE_SEARCH_WORK, runCodeLimits } from "../../../src/sessions/object/tools/builtin/run-code";
import { runJavaScript, type SandboxOutcome } from "../../../src/sessions/object/tools/sandbox/run-js";

/**
 * The production limits, but for the wall clock: production's clock does not move while code
 * runs, so the work limit is what bounds a run there, and it is what these tests hold to. A busy
 * machine's clock would only make them flaky; the time taken is measured by
 * `npm run bench -- bench/work-bounds.ts`.
 */
function run(code: string, nativeSearchWork: number): Promise<SandboxOutcome> {
  return runJavaScript(code, { ...runCodeLimits(8_000), timeoutMs: 600_000, nativeSearchWork });
}

/** Every case evaluated twice in one run: by the guard's own search (threshold 0) and natively. */
const CASES = [
  `"abcabcab".indexOf("cab")`,
  `"abcabcab".indexOf("cab", 3)`,
  `"abcabcab".indexOf("cab", -5)`,
  `"abc".indexOf("abcd")`,
  `"aaa".indexOf("aa", 2)`,
  `"abcabcab".lastIndexOf("ab")`,
  `"abcabcab".lastIndexOf("ab", 5)`,
  `"abcabcab".lastIndexOf("ab", -1)`,
  `"abcabcab".lastIndexOf("ab", NaN)`,
  `"abc".lastIndexOf("abcd")`,
  `"aabaabaa".lastIndexOf("aba", 3)`,
  `"abcabc".includes("ca")`,
  `"abcabc".includes("ca", 3)`,
  `"abcabc".includes("x")`,
  `"12345".indexOf(34)`,
  `"a,b,,c".split(",")`,
  `"a,b,,c".split(",", 2)`,
  `"a--b--".split("--")`,
  `"aaaa".split("aa")`,
  `"abc".split("abc")`,
  `"a,b".split(",", 0)`,
  `"abab".replace("ab", "[$&|$\`|$'|$$|$1]")`,
  `"abab".replaceAll("ab", "<$&>")`,
  `"abab".replaceAll("ab", (m, at, s) => m + at + s.length)`,
  `"aaaa".replaceAll("aa", "b")`,
  `"xyz".replace("q", "r")`,
  `"x.y.z".replaceAll(".", "$")`,
  `"ab".replace("b", "$'$'")`,
  `"abc".indexOf({ toString() { return "bc"; } })`,
  `String.prototype.indexOf.call(12345, 34)`,
  `"x".indexOf.length`,
  `"x".replaceAll.name`,
  `("xy".repeat(40000) + "needle" + "xy".repeat(40000)).indexOf("needle")`,
  `("ab".repeat(70000) + "c").lastIndexOf("bab", 100000)`,
  `"ab".repeat(70000).indexOf("ba", 65535)`,
  `"ab".repeat(70000).lastIndexOf("ab")`,
  `"é😀é😀".indexOf("😀é")`,
  `"é😀é😀".lastIndexOf("é")`,
  `"a1b2".split(/\\d/)`,
  `"a1b2".replace(/\\d/g, "#")`,
  `"a1b2".replaceAll(/\\d/g, "#")`,
];

describe("run_code string searches", () => {
  it("answer as the native methods do", async () => {
    const code = `return [${CASES.map((c) => `(() => { try { return ${c}; } catch (e) { return "throws " + e.name; } })()`).join(", ")}];`;
    const own = await run(code, 0);
    const native = await run(code, Number.MAX_SAFE_INTEGER);
    expect(own.ok && native.ok).toBe(true);
    if (!own.ok || !native.ok) return;
    const ownValues = JSON.parse(own.resultJson!) as unknown[];
    const nativeValues = JSON.parse(native.resultJson!) as unknown[];
    CASES.forEach((c, i) => expect(ownValues[i], c).toEqual(nativeValues[i]));
    const errors = await run(
      `const r = []; for (const f of [() => String.prototype.indexOf.call(null, "a"), () => "a".includes(/a/)]) { try { f(); r.push("no"); } catch (e) { r.push(e.name); } } return r;`,
      0,
    );
    expect(errors).toMatchObject({ ok: true, resultJson: '["TypeError","TypeError"]' });
  });

  // 300,000 × 30,000 characters: 18 s in one native call before; one linear pass now.
  const HAY = `const s = "a".repeat(300000); const n = "a".repeat(29999) + "b";`;
  it.each([
    ["indexOf", `return s.indexOf(n);`, "-1"],
    ["lastIndexOf", `return s.lastIndexOf(n);`, "-1"],
    ["includes", `return s.includes(n);`, "false"],
    ["split", `return s.split(n).length;`, "1"],
    ["replaceAll", `return s.replaceAll(n, "x").length;`, "300000"],
    ["replace", `return (s + n).replace(n, "x").length;`, "300001"],
  ])("%s of a 30,000-character needle in 300,000 characters ends within the work limit", async (_name, body, expected) => {
    const outcome = await run(`${HAY} ${body}`, RUN_CODE_NATIVE_SEARCH_WORK);
    expect(outcome).toMatchObject({ ok: true, resultJson: expected });
  });

  it("counts a large search against the work limit, natively or not", async () => {
    // 100,000 × 500 characters: over the native threshold, and a pass the interpreter counts
    // about a hundred times; 20 checks allowed is plenty for building the strings alone.
    const scarce = { ...runCodeLimits(8_000), timeoutMs: 600_000, maxWork: 20 };
    const code = `const s = "a".repeat(100000); const n = "a".repeat(499) + "b"; return s.indexOf(n);`;
    expect(await runJavaScript(code, { ...scarce, nativeSearchWork: RUN_CODE_NATIVE_SEARCH_WORK })).toMatchObject({
      ok: false,
      stop: "time_limit",
    });
    // The same search left native: one built-in call, which no check reaches, paid for before it is made.
    expect(await runJavaScript(code, { ...scarce, nativeSearchWork: Number.MAX_SAFE_INTEGER })).toMatchObject({
      ok: false,
      stop: "time_limit",
    });
  });

  it("finds a match near the end of a large haystack", async () => {
    const outcome = await run(
      `const n = "a".repeat(29999) + "b"; const s = "a".repeat(300000) + n + "a"; return [s.indexOf(n), s.lastIndexOf(n), s.split(n).length, s.replaceAll(n, "").length];`,
      RUN_CODE_NATIVE_SEARCH_WORK,
    );
    expect(outcome).toMatchObject({ ok: true, resultJson: "[300000,300000,2,300001]" });
  });
});
