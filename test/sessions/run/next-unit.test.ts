import { describe, expect, it } from "vitest";
import { nextUnit, type UnitInputs } from "../../../src/sessions/object/loop/next-unit";
import { EMPTY_USAGE } from "../../../src/session-config/types";
import { BUILTIN_DEFAULT_LIMITS, type Limits } from "../../../src/limits";

const NOW = 1_000_000;

function inputs(
  overrides: { run?: Partial<UnitInputs["run"]>; limits?: Partial<Limits> } & Partial<Omit<UnitInputs, "run" | "limits">> = {},
): UnitInputs {
  const { run, limits, ...rest } = overrides;
  return {
    run: { status: "running", next_attempt_at: 0, steps: 0, usage: { ...EMPTY_USAGE }, ...run },
    openToolCalls: 0,
    limits: { ...BUILTIN_DEFAULT_LIMITS, ...limits },
    tenantTokensToday: 0,
    summaryDue: () => false,
    toolsReady: true,
    now: NOW,
    ...rest,
  };
}

describe("nextUnit", () => {
  it.each([
    ["a session that is not running", inputs({ run: { status: "waiting_approval" } }), { kind: "none" }],
    ["a pending backoff", inputs({ run: { next_attempt_at: NOW + 500 } }), { kind: "wait", until: NOW + 500 }],
    ["a backoff that is over", inputs({ run: { next_attempt_at: NOW } }), { kind: "model", maxTokens: 4096 }],
    ["open tool calls, even at the step limit", inputs({ openToolCalls: 2, run: { steps: 20 } }), { kind: "tools" }],
    ["the step limit", inputs({ run: { steps: 20 } }), { kind: "finish", stopReason: "step_limit" }],
    ["MCP tools not listed yet: before any model call", inputs({ toolsReady: false }), { kind: "discover" }],
    ["MCP tools not listed yet: before any tool call", inputs({ toolsReady: false, openToolCalls: 1 }), { kind: "discover" }],
    [
      "MCP tools not listed yet, during a backoff",
      inputs({ toolsReady: false, run: { next_attempt_at: NOW + 500 } }),
      { kind: "wait", until: NOW + 500 },
    ],
    [
      "the session's token budget",
      inputs({ run: { usage: { ...EMPTY_USAGE, steps: 3, input_tokens: 150_000, output_tokens: 50_000 } } }),
      { kind: "wait_budget", budget: "session_tokens" },
    ],
    [
      "the session's token budget, its sub-agents' tokens counted",
      inputs({ run: { usage: { ...EMPTY_USAGE, input_tokens: 150_000 } }, descendantTokens: 50_000 }),
      { kind: "wait_budget", budget: "session_tokens" },
    ],
    [
      "a call capped by what its sub-agents left",
      inputs({ run: { usage: { ...EMPTY_USAGE, input_tokens: 100_000 } }, descendantTokens: 99_000 }),
      { kind: "model", maxTokens: 1_000 },
    ],
    [
      "the tenant's daily budget",
      inputs({ limits: { max_tokens_per_day: 100 }, tenantTokensToday: 100 }),
      { kind: "wait_budget", budget: "tenant_tokens" },
    ],
    [
      "the session's cost budget, its sub-agents' cost counted",
      inputs({ limits: { max_cost_usd_per_session: 0.5 }, sessionCostUsd: 0.5 }),
      { kind: "wait_budget", budget: "session_cost" },
    ],
    [
      "a cost budget not reached yet",
      inputs({ limits: { max_cost_usd_per_session: 0.5 }, sessionCostUsd: 0.49 }),
      { kind: "model", maxTokens: 4096 },
    ],
    [
      "a daily budget not known yet",
      inputs({ limits: { max_tokens_per_day: 100 }, tenantTokensToday: null }),
      { kind: "model", maxTokens: 4096 },
    ],
    [
      "a call capped by what the session has left",
      inputs({ run: { usage: { ...EMPTY_USAGE, steps: 3, input_tokens: 198_000, output_tokens: 1_000 } } }),
      { kind: "model", maxTokens: 1_000 },
    ],
  ] as const)("%s", (_name, given, expected) => {
    expect(nextUnit(given)).toEqual(expected);
  });
});
