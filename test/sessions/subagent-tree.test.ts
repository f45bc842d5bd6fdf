/** The root's decision on a tree's ask (src/sessions/object/subagents/tree.ts), pure: a table of cases. */
import { describe, expect, it } from "vitest";
import { refusalText, treeDecision, type TreeAsk } from "../../src/sessions/object/subagents/tree";

const LIMITS = { max_sessions_per_tree: 3, max_model_calls_per_tree: 2 };
const child = (id: string): TreeAsk => ({ kind: "session", session_id: id });
const CALL: TreeAsk = { kind: "model_call" };

describe("treeDecision", () => {
  it.each([
    ["a first child", { run: 0, children: [], model_calls: 0 }, child("a"), true, { run: 0, children: ["a"], model_calls: 0 }],
    [
      "the last place (the root is the third session)",
      { run: 0, children: ["a"], model_calls: 0 },
      child("b"),
      true,
      { run: 0, children: ["a", "b"], model_calls: 0 },
    ],
    ["one past it", { run: 0, children: ["a", "b"], model_calls: 0 }, child("c"), false, { run: 0, children: ["a", "b"], model_calls: 0 }],
    [
      "a child asked again, at the limit",
      { run: 0, children: ["a", "b"], model_calls: 0 },
      child("b"),
      true,
      { run: 0, children: ["a", "b"], model_calls: 0 },
    ],
    ["a model call", { run: 0, children: [], model_calls: 1 }, CALL, true, { run: 0, children: [], model_calls: 2 }],
    ["a model call past the limit", { run: 0, children: [], model_calls: 2 }, CALL, false, { run: 0, children: [], model_calls: 2 }],
    // The root's own calls (its run's steps) count with its children's.
    [
      "a child's model call after the root's own",
      { run: 0, children: [], model_calls: 1 },
      CALL,
      false,
      { run: 0, children: [], model_calls: 1 },
      1,
    ],
  ])("%s", (_name, tree, ask, ok, after, ownCalls = 0) => {
    const decided = treeDecision(tree, LIMITS, ask, ownCalls);
    expect(decided.answer.ok).toBe(ok);
    expect(decided.tree).toEqual(after);
  });

  it("names the limit and its value in the refusal", () => {
    const sessions = treeDecision({ run: 0, children: ["a", "b"], model_calls: 0 }, LIMITS, child("c")).answer;
    const calls = treeDecision({ run: 0, children: [], model_calls: 2 }, LIMITS, CALL).answer;
    expect(sessions.ok || refusalText(sessions)).toMatch(/at most 3 sessions.*\(max_sessions_per_tree\)/);
    expect(calls.ok || refusalText(calls)).toMatch(/its 2 model calls \(max_model_calls_per_tree\)/);
  });
});
