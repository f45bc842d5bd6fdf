/**
 * The pure rules of sub-agents: when a call may start a child, what a child's end gives its
 * parent's call, which reports a parent accepts, and how open calls that wait for children stand.
 */
import { describe, expect, it } from "vitest";
import { openCallsState } from "../../src/sessions/object/engine/tool-results";
import { agentCallProblem, problemText } from "../../src/sessions/object/loop/steps/agent-call";
import { orphanedChildren, watchedChildren } from "../../src/sessions/object/subagents/parent";
import { childResult, finalText, parseChildReport } from "../../src/sessions/object/subagents/report";
import type { SubagentRow } from "../../src/sessions/object/store/store";
import { childSessionId, isSessionId } from "../../src/session-config/ids";
import { EMPTY_USAGE } from "../../src/session-config/types";

describe("agentCallProblem", () => {
  it.each([
    ["a good call", { input: "go" }, 0, 3, 0, 10, null],
    ["no input field", { task: "go" }, 0, 3, 0, 10, "input"],
    ["an empty input", { input: "  " }, 0, 3, 0, 10, "input"],
    ["another field beside input", { input: "go", extra: 1 }, 0, 3, 0, 10, "input"],
    ["not an object", "go", 0, 3, 0, 10, "input"],
    ["the deepest allowed child", { input: "go" }, 2, 3, 0, 10, null],
    ["one level too deep", { input: "go" }, 3, 3, 0, 10, "depth"],
    ["no children allowed at all", { input: "go" }, 0, 0, 0, 10, "depth"],
    ["the last child of the run", { input: "go" }, 0, 3, 9, 10, null],
    ["one child too many", { input: "go" }, 0, 3, 10, 10, "count"],
    ["a bad input is told before a limit", { nope: 1 }, 3, 3, 10, 10, "input"],
  ] as const)("%s", (_name, input, depth, maxDepth, started, maxPerRun, kind) => {
    const problem = agentCallProblem(input, depth, maxDepth, started, maxPerRun);
    expect(problem?.kind ?? null).toBe(kind);
    if (problem?.kind === "depth") expect(problemText(problem)).toContain("max_agent_depth");
    if (problem?.kind === "count") expect(problemText(problem)).toContain("max_subagents_per_run");
  });
});

describe("childResult", () => {
  const base = { stop_reason: null, error: null, output: null, hasSchema: false };
  it.each([
    ["a child still running", { ...base, status: "running" }, "x", null],
    ["done, free text", { ...base, status: "done", stop_reason: "end_turn" }, "the answer", { output: "the answer", is_error: false }],
    [
      "done at a limit, its last text",
      { ...base, status: "done", stop_reason: "step_limit" },
      "so far",
      { output: "so far", is_error: false },
    ],
    [
      "done with an output",
      { ...base, status: "done", hasSchema: true, output: { total: 3 } },
      "ignored",
      { output: '{"total":3}', is_error: false },
    ],
    ["done with a schema but no output", { ...base, status: "done", hasSchema: true }, "text", { output: "text", is_error: false }],
    ["done with no text", { ...base, status: "done" }, "", { output: "(the agent answered with no text)", is_error: false }],
    [
      "failed",
      { ...base, status: "failed", stop_reason: "model_error", error: "model provider answered 500" },
      "",
      { output: "the agent's session failed (model_error): model provider answered 500", is_error: true },
    ],
    [
      "cancelled",
      { ...base, status: "cancelled", stop_reason: "cancelled" },
      "partial",
      { output: "the agent's session was cancelled", is_error: true },
    ],
  ] as const)("%s", (_name, child, text, expected) => {
    expect(childResult(child, text)).toEqual(expected);
  });

  it("takes the newest assistant text as the final text", () => {
    const at = "2026-12-02T00:00:00.000Z";
    expect(
      finalText([
        { seq: 1, role: "user", content: [{ type: "text", text: "q" }], created_at: at },
        { seq: 2, role: "assistant", content: [{ type: "text", text: "first" }], created_at: at },
        {
          seq: 3,
          role: "assistant",
          content: [
            { type: "text", text: "a" },
            { type: "tool_use", id: "t", name: "n", input: {} },
            { type: "text", text: "b" },
          ],
          created_at: at,
        },
      ]),
    ).toBe("a\nb");
  });
});

describe("parseChildReport", () => {
  const good = {
    tool_call_id: "toolu_1",
    session_id: "ses_x",
    status: "done",
    stop_reason: "end_turn",
    revision: 4,
    usage: { ...EMPTY_USAGE },
    result: { output: "ok", is_error: false },
  };
  it("accepts a report and refuses anything malformed", () => {
    expect(parseChildReport(good)).toEqual(good);
    expect(parseChildReport({ ...good, result: null })).not.toBeNull();
    for (const bad of [
      null,
      "x",
      { ...good, status: "nope" },
      { ...good, stop_reason: "nope" },
      { ...good, revision: 1.5 },
      { ...good, usage: { ...EMPTY_USAGE, steps: -1 } },
      { ...good, result: { output: 1, is_error: false } },
      { ...good, tool_call_id: 3 },
    ]) {
      expect(parseChildReport(bad), JSON.stringify(bad)).toBeNull();
    }
  });
});

describe("open calls that wait for children", () => {
  it.each([
    ["a running call whose child runs", [{ id: "a", status: "running" }], ["a"], "waiting_subagents"],
    ["a running call with no child yet", [{ id: "a", status: "running" }], [], "runnable"],
    [
      "a child and a pending call",
      [
        { id: "a", status: "running" },
        { id: "b", status: "pending" },
      ],
      ["a"],
      "runnable",
    ],
    [
      "a child and a call waiting for approval",
      [
        { id: "a", status: "running" },
        { id: "b", status: "waiting_approval" },
      ],
      ["a"],
      "waiting_approval",
    ],
    ["a child's call answered", [{ id: "a", status: "done" }], [], "complete"],
  ] as const)("%s", (_name, open, children, state) => {
    expect(openCallsState(open, new Set(children))).toBe(state);
  });

  it("watches children whose call is open and cancels those whose call was closed without them", () => {
    const row = (over: Partial<SubagentRow>): SubagentRow => ({
      tool_call_id: "a",
      session_id: "ses_a",
      run_start_seq: 1,
      started: true,
      status: "running",
      stop_reason: null,
      revision: 2,
      usage: { ...EMPTY_USAGE },
      cancel_sent: false,
      created_at: "",
      ...over,
    });
    const rows = [
      row({}),
      row({ tool_call_id: "b" }),
      row({ tool_call_id: "c", status: "done" }),
      row({ tool_call_id: "d", cancel_sent: true }),
      row({ tool_call_id: "e", started: false }),
    ];
    expect(watchedChildren(rows, new Set(["a"])).map((r) => r.tool_call_id)).toEqual(["a"]);
    expect(orphanedChildren(rows, new Set(["a"])).map((r) => r.tool_call_id)).toEqual(["b", "e"]);
  });
});

describe("childSessionId", () => {
  it("is a session id, the same for the same call and different for another", async () => {
    const one = await childSessionId("ses_parent", "toolu_1");
    expect(isSessionId(one)).toBe(true);
    expect(await childSessionId("ses_parent", "toolu_1")).toBe(one);
    expect(await childSessionId("ses_parent", "toolu_2")).not.toBe(one);
    expect(await childSessionId("ses_other", "toolu_1")).not.toBe(one);
  });
});
