/** A session's reasoning settings on each provider's wire, and reasoning counted in usage. Pure. */
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config";
import { toWire } from "../../../src/sessions/object/model/anthropic";
import { acceptsReasoning, type ModelCatalog } from "../../../src/models/catalog";
import { toChatRequest, toUsage } from "../../../src/sessions/object/model/openai-wire";
import type { ModelRequest } from "../../../src/sessions/object/model/provider";
import { anthropicThinking } from "../../../src/session-config/reasoning";
import { reasoningProblems } from "../../../src/sessions/prepare";

const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  model: "m",
  system: null,
  messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
  tools: [],
  maxTokens: 8_000,
  ...overrides,
});
const OUTPUT = { schema: { type: "object" }, tool: { name: "respond", description: "answer", input_schema: { type: "object" } } };

describe("Anthropic's thinking budget", () => {
  it.each([
    [{ effort: "low" as const }, 8_000, 1_024],
    [{ effort: "high" as const }, 8_000, 7_999],
    [{}, 8_000, 4_096],
    [{ budget_tokens: 3_000, effort: "high" as const }, 8_000, 3_000],
    [{ budget_tokens: 3_000 }, 2_000, 1_999],
  ])("%j under a cap of %i is %i", (reasoning, cap, budget) => {
    expect(anthropicThinking(reasoning, cap)).toEqual({ type: "enabled", budget_tokens: budget });
  });

  it("is off without settings, and when the cap leaves no room for the smallest budget", () => {
    expect(anthropicThinking(null, 8_000)).toBeNull();
    expect(anthropicThinking({ effort: "low" }, 1_024)).toBeNull();
  });

  it("goes on the wire, and a forced output tool becomes auto, the only choice the API takes with thinking", () => {
    expect(toWire(request({ reasoning: { effort: "medium" } }))).toMatchObject({ thinking: { type: "enabled", budget_tokens: 4_096 } });
    expect(toWire(request({ reasoning: { effort: "medium" }, output: OUTPUT }))).toMatchObject({ tool_choice: { type: "auto" } });
    expect(toWire(request({ output: OUTPUT }))).toMatchObject({ tool_choice: { type: "tool", name: "respond" } });
    expect(toWire(request())).not.toHaveProperty("thinking");
  });
});

describe("Chat Completions reasoning", () => {
  it("sends the effort as reasoning_effort, and nothing without one", () => {
    expect(toChatRequest(request({ reasoning: { effort: "low" } }), true)).toMatchObject({ reasoning_effort: "low" });
    expect(toChatRequest(request({ reasoning: {} }), true)).not.toHaveProperty("reasoning_effort");
    expect(toChatRequest(request(), true)).not.toHaveProperty("reasoning_effort");
  });

  it("counts reasoning tokens apart where the server reports them, as part of the output", () => {
    expect(toUsage({ prompt_tokens: 10, completion_tokens: 50, completion_tokens_details: { reasoning_tokens: 30 } })).toEqual({
      input_tokens: 10,
      output_tokens: 50,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      reasoning_tokens: 30,
    });
    expect(toUsage({ prompt_tokens: 10, completion_tokens: 5 })).not.toHaveProperty("reasoning_tokens");
  });
});

describe("which models take reasoning", () => {
  const catalog: ModelCatalog = [
    { pattern: "openai:deepseek-reasoner", contextTokens: null, reasoning: true },
    { pattern: "anthropic:claude-sonnet-4-5", contextTokens: null, reasoning: false },
    { pattern: "*", contextTokens: null },
  ];

  it.each([
    ["claude-opus-4-1", true],
    ["claude-3-7-sonnet-latest", true],
    ["claude-3-5-haiku-latest", false],
    ["openai:o3-mini", true],
    ["openai:o1-mini", false],
    ["openai:gpt-5-mini", true],
    ["openai:gpt-4o", false],
    ["openai:deepseek-reasoner", true],
    ["claude-sonnet-4-5", false],
    ["openai:llama3", false],
  ])("%s: %s", (model, takes) => expect(acceptsReasoning(catalog, model)).toBe(takes));

  it("reads MODELS' reasoning flag, and refuses one that is not a boolean", () => {
    const env = { MODEL: "openai:qwen3", MODELS: JSON.stringify([{ id: "openai:qwen3", reasoning: true }]) };
    expect(parseConfig(env as never).models).toEqual([{ pattern: "openai:qwen3", contextTokens: null, images: null, reasoning: true }]);
    expect(() => parseConfig({ ...env, MODELS: JSON.stringify([{ id: "openai:qwen3", reasoning: "yes" }]) } as never)).toThrow(/reasoning/);
  });

  it("judges settings against the model and the per-call cap", () => {
    expect(reasoningProblems(null, "openai:gpt-4o", null, 4096)).toEqual([]);
    expect(reasoningProblems({ effort: "low" }, "openai:gpt-4o", null, 4096).map((e) => e.path)).toEqual(["body.reasoning"]);
    expect(reasoningProblems({ budget_tokens: 4096 }, "claude-opus-4-1", null, 4096).map((e) => e.path)).toEqual([
      "body.reasoning.budget_tokens",
    ]);
    expect(reasoningProblems({ budget_tokens: 4095 }, "claude-opus-4-1", null, 4096)).toEqual([]);
  });
});
