import { describe, expect, it } from "vitest";
import { type MessageKind } from "../../../src/sessions/object/context/estimate";
import { fitWindow, type MessageMeta, planSummary } from "../../../src/sessions/object/context/window";

/** A history from a compact spec: i(nput), u(se: assistant with tool_use), r(esult), a(nswer); each 10 tokens unless given. */
function history(spec: string, tokens: (i: number) => number = () => 10): MessageMeta[] {
  const kinds: Record<string, MessageKind> = { i: "input", u: "tool_use", r: "tool_result", a: "answer" };
  return [...spec].map((c, i) => ({ seq: i + 1, kind: kinds[c]!, tokens: tokens(i) }));
}
const newestFirst = (h: MessageMeta[]) => [...h].reverse();

describe("fitWindow", () => {
  const h = history("iururaiurur"); // two runs; the second (from seq 7) waits for the model
  const task = h[0]!;
  const runTask = h[6]!;
  it.each([
    ["everything, when it all fits", { budget: 1_000, pinned: [task] }, { startSeq: 1, tokens: 100, overBudget: false }],
    ["the newest that fit", { budget: 60, pinned: [task] }, { startSeq: 7, tokens: 50, overBudget: false }],
    ["the run's task pinned too, counted once", { budget: 60, pinned: [task, runTask] }, { startSeq: 7, tokens: 40, overBudget: false }],
    // Three from the end would start at a tool_result (seq 9): two.
    [
      "a count of messages, never starting at a tool_result",
      { budget: 1_000, pinned: [task], maxCount: 3 },
      { startSeq: 10, tokens: 20, overBudget: false },
    ],
    [
      "a count of one that ends at a tool_result, and its tool_use",
      { budget: 1_000, pinned: [task], maxCount: 1 },
      { startSeq: 10, tokens: 20, overBudget: true },
    ],
    ["the smallest window when nothing fits", { budget: 5, pinned: [task] }, { startSeq: 10, tokens: 20, overBudget: true }],
  ] as const)("takes %s", (_name, limits, expected) => {
    expect(fitWindow(newestFirst(h), limits)).toEqual(expected);
  });

  it("stops reading the history once the window is full", () => {
    let read = 0;
    function* lazily() {
      for (const message of newestFirst(h)) {
        read++;
        yield message;
      }
    }
    fitWindow(lazily(), { budget: 40, pinned: [task] });
    expect(read).toBeLessThanOrEqual(4);
  });

  it("holds its rules on random histories and budgets", () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 300; round++) {
      const spec = ["i"];
      while (spec.length < 5 + Math.floor(random() * 60)) {
        const r = random();
        if (r < 0.55) spec.push("u", "r");
        else if (r < 0.75) spec.push("a", "i");
        else spec.push("i");
      }
      const h = history(spec.join(""), () => 1 + Math.floor(random() * 40));
      const pinned = [h[0]!];
      const budget = Math.floor(random() * 400);
      const maxCount = random() < 0.3 ? 1 + Math.floor(random() * 10) : undefined;
      const window = fitWindow(newestFirst(h), { budget, pinned, ...(maxCount ? { maxCount } : {}) });
      const start = h.find((m) => m.seq === window.startSeq)!;
      expect(start.kind).not.toBe("tool_result");
      const inside = h.filter((m) => m.seq >= start.seq && m.seq !== 1);
      expect(window.tokens).toBe(inside.reduce((sum, m) => sum + m.tokens, 0));
      if (!window.overBudget) {
        expect(window.tokens + pinned[0]!.tokens).toBeLessThanOrEqual(budget);
        if (maxCount) expect(inside.length).toBeLessThanOrEqual(maxCount);
      }
    }
  });
});

describe("planSummary", () => {
  // After the task (seq 1): seq 2.. of 10 tokens each.
  const after = history("iurururururururura").slice(1);
  const base = { pinned: [{ seq: 1, kind: "input" as const, tokens: 10 }], summaryTokens: 0, summaryReserve: 0, foldCap: 1_000 };

  it.each([
    ["sends everything when it fits", { ...base, budget: 1_000 }, { kind: "fits", startSeq: 2 }],
    // 17 messages, 170 tokens, over 100: keep at most 50 - 10 = 40, starting at an assistant message.
    [
      "folds the older part until the newest fill half the budget",
      { ...base, budget: 100 },
      { kind: "summarize", throughSeq: 15, foldTokens: 140 },
    ],
    [
      "keeps room for the summary it is about to make",
      { ...base, budget: 100, summaryReserve: 20 },
      { kind: "summarize", throughSeq: 17, foldTokens: 160 },
    ],
    ["folds at most the cap in one call", { ...base, budget: 100, foldCap: 55 }, { kind: "summarize", throughSeq: 5, foldTokens: 40 }],
  ] as const)("%s", (_name, limits, expected) => {
    expect(planSummary(newestFirst(after), limits)).toEqual(expected);
  });

  it("counts the current summary against the budget", () => {
    expect(planSummary(newestFirst(after), { ...base, budget: 180 })).toEqual({ kind: "fits", startSeq: 2 });
    expect(planSummary(newestFirst(after), { ...base, budget: 180, summaryTokens: 30 }).kind).toBe("summarize");
  });

  it("sends the smallest window over budget when nothing can be folded", () => {
    const last = history("iur").slice(1); // a tool_use and its result: one step, nothing before it
    expect(planSummary(newestFirst(last), { ...base, budget: 5 })).toEqual({ kind: "over", startSeq: 2 });
  });

  it("never leaves a window that starts at a tool_result", () => {
    for (let budget = 20; budget < 200; budget += 7) {
      const plan = planSummary(newestFirst(after), { ...base, budget });
      if (plan.kind === "summarize") expect(after.find((m) => m.seq === plan.throughSeq + 1)?.kind).not.toBe("tool_result");
    }
  });
});
