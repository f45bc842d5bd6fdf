/** The agent page's diff of two definitions: canonical text, numbered line changes, folded context. */
import { describe, expect, it } from "vitest";
import { type DiffLine, definitionText, diffCounts, foldUnchanged, lineDiff } from "../../../console/src/definition-diff";

const same = (oldLine: number, newLine: number, text = `l${oldLine}`): DiffLine => ({ kind: "same", text, oldLine, newLine });

describe("definitionText", () => {
  it("sorts keys at every depth and keeps arrays in order, so key order is never a change", () => {
    const a = {
      system: "s",
      name: "n",
      tools: [
        { type: "builtin", name: "b" },
        { name: "a", type: "builtin" },
      ],
      limits: { z: 1, a: 2 },
    };
    const b = {
      limits: { a: 2, z: 1 },
      name: "n",
      tools: [
        { name: "b", type: "builtin" },
        { type: "builtin", name: "a" },
      ],
      system: "s",
    };
    expect(definitionText(a)).toBe(definitionText(b));
    expect(definitionText(a).split("\n").slice(0, 5)).toEqual(["{", '  "limits": {', '    "a": 2,', '    "z": 1', "  },"]);
    expect(definitionText({ tools: [2, 1] })).not.toBe(definitionText({ tools: [1, 2] }));
  });

  it("shows a key named __proto__ like any other", () => {
    expect(definitionText(JSON.parse('{"metadata":{"__proto__":"x"}}'))).toContain('"__proto__": "x"');
  });
});

describe("lineDiff", () => {
  it("numbers each line on its side, removals before the additions that replace them", () => {
    expect(lineDiff("a\nb\nc", "a\nB\nc\nd")).toEqual([
      { kind: "same", text: "a", oldLine: 1, newLine: 1 },
      { kind: "removed", text: "b", oldLine: 2 },
      { kind: "added", text: "B", newLine: 2 },
      { kind: "same", text: "c", oldLine: 3, newLine: 3 },
      { kind: "added", text: "d", newLine: 4 },
    ]);
  });

  it("finds no change between equal texts, and only additions from an empty one", () => {
    expect(lineDiff("x\ny", "x\ny")).toEqual([same(1, 1, "x"), same(2, 2, "y")]);
    expect(diffCounts(lineDiff("", "p\nq"))).toEqual({ added: 2, removed: 1 });
  });

  it("tells the changed field of two definitions apart from the rest", () => {
    const before = definitionText({ name: "triage", system: "Be brief.", limits: { max_steps_per_run: 10 } });
    const after = definitionText({ name: "triage", system: "Be brief and kind.", limits: { max_steps_per_run: 10 } });
    const lines = lineDiff(before, after);
    expect(lines.filter((line) => line.kind !== "same").map((line) => [line.kind, line.text])).toEqual([
      ["removed", '  "system": "Be brief."'],
      ["added", '  "system": "Be brief and kind."'],
    ]);
    expect(diffCounts(lines)).toEqual({ added: 1, removed: 1 });
  });
});

describe("foldUnchanged", () => {
  const texts = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`).join("\n");

  it("keeps three lines around a change and folds the rest, counted and numbered", () => {
    const before = texts(20, "l");
    const after = before.replace("l10\n", "changed\n");
    const rows = foldUnchanged(lineDiff(before, after));
    expect(
      rows.map((row) => (row.kind === "fold" ? `fold ${row.count} @${row.oldLine}/${row.newLine}` : `${row.kind} ${row.text}`)),
    ).toEqual([
      "fold 6 @1/1",
      "same l7",
      "same l8",
      "same l9",
      "removed l10",
      "added changed",
      "same l11",
      "same l12",
      "same l13",
      "fold 7 @14/14",
    ]);
  });

  it("keeps a stretch between two changes whole when folding it would hide fewer than two lines", () => {
    const lines: DiffLine[] = [
      { kind: "added", text: "+", newLine: 1 },
      ...[2, 3, 4, 5, 6, 7, 8].map((n) => same(n - 1, n)),
      { kind: "added", text: "+", newLine: 9 },
    ];
    expect(foldUnchanged(lines).some((row) => row.kind === "fold")).toBe(false);
    const longer: DiffLine[] = [
      { kind: "added", text: "+", newLine: 1 },
      ...[2, 3, 4, 5, 6, 7, 8, 9].map((n) => same(n - 1, n)),
      { kind: "added", text: "+", newLine: 10 },
    ];
    expect(foldUnchanged(longer).filter((row) => row.kind === "fold")).toEqual([{ kind: "fold", count: 2, oldLine: 4, newLine: 5 }]);
  });

  it("folds nothing of a short text, and everything of an unchanged one", () => {
    const short: DiffLine[] = [{ kind: "removed", text: "-", oldLine: 1 }, same(2, 1), same(3, 2)];
    expect(foldUnchanged(short)).toEqual(short);
    const unchanged = lineDiff(texts(5, "x"), texts(5, "x"));
    expect(foldUnchanged(unchanged)).toEqual([{ kind: "fold", count: 5, oldLine: 1, newLine: 1 }]);
  });
});
