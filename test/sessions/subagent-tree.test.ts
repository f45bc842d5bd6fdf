/** The root's decision on a tree's ask (src/sessions/object/subagents/tree.ts), pure: a table of cases. */
import { describe, expect, it } from "vitest";
import { refusalText, treeDecision, type TreeAsk } from "../../src/sessions/object/subagents/tree";

const LIMITS = { max_sessions_per_tree: 3, max_model_calls_per_tree: 2 };
const child = (id: string): TreeAsk => ({ kind: "session", session_id: id });
const CALL: TreeAsk = { kind: "model_call" };

describe("treeDecision", () => {
  it.each([
    ["a first child", { children: [], model_calls: 0 }, child("a"), true, { children: ["a"], model_calls: 0 }],
    [
      "the last place (the root is the third session)",
      { children: ["a"], model_calls: 0 },
      child("b"),
      true,
      { children: ["a", "b"], model_calls: 0 },
    ],
    ["one past it", { children: ["a", "b"], model_calls: 0 }, child("c"), false, { children: ["a", "b"], model_calls: 0 }],
    [
      "a child asked again, at the limit",
      { children: ["a", "b"], model_calls: 0 },
      child("b"),
      true,
      { children: ["a", "b"], model_calls: 0 },
    ],
    ["a model call", { children: [], model_calls: 1 }, CALL, true, { children: [], model_calls: 2 }],
    ["a model call past the limit", { children: [], model_calls: 2 }, CALL, false, { children: [], model_calls: 2 }],
  ])("%s", (_name, tree, ask, ok, after) => {
    const decided = treeDecision(tree, LIMITS, ask);
    expect(decided.answer.ok).toBe(ok);
    expect(decided.tree).toEqual(after);
  });

  it("names the limit and its value in the refusal", () => {
    const sessions = treeDecision({ children: ["a", "b"], model_calls: 0 }, LIMITS, child("c")).answer;
    const calls = treeDecision({ children: [], model_calls: 2 }, LIMITS, CALL).answer;
    expect(sessions.ok || refusalText(sessions)).toMatch(/at most 3 sessions.*\(max_sessions_per_tree\)/);
    expect(calls.ok || refusalText(calls)).toMatch(/its 2 model calls \(max_model_calls_per_tree\)/);
  });
});
