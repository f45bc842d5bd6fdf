import { describe, expect, it } from "vitest";
import {
  canonicalModel,
  contextTokensFor,
  covers,
  defaultModelFor,
  isModelAllowed,
  type ModelCatalog,
  parseModel,
  uncoveredModels,
} from "../../../src/models/catalog";
import { chooseModel } from "../../../src/sessions/prepare";
import { ConfigError, parseConfig } from "../../../src/config";

const catalog: ModelCatalog = [
  { pattern: "anthropic:claude-sonnet-4-5", contextTokens: null },
  { pattern: "openai:gpt-4o*", contextTokens: null },
  { pattern: "openai:llama3:8b", contextTokens: 8192 },
];

describe("model ids", () => {
  it.each([
    ["claude-sonnet-4-5", { provider: "anthropic", name: "claude-sonnet-4-5" }],
    ["anthropic:claude-x", { provider: "anthropic", name: "claude-x" }],
    ["openai:gpt-4o", { provider: "openai", name: "gpt-4o" }],
    ["openai:llama3:8b", { provider: "openai", name: "llama3:8b" }],
    ["llama3:8b", { provider: "anthropic", name: "llama3:8b" }],
  ])("reads %s", (id, ref) => expect(parseModel(id)).toEqual(ref));

  it("names an unprefixed model as Anthropic's", () => expect(canonicalModel("claude-x")).toBe("anthropic:claude-x"));
});

describe("allowed models", () => {
  it.each([
    ["claude-sonnet-4-5", null, true],
    ["anthropic:claude-sonnet-4-5", null, true],
    ["openai:gpt-4o-mini", null, true],
    ["openai:gpt-5", null, false],
    ["claude-opus-4", null, false],
    ["openai:gpt-4o-mini", ["openai:gpt-4o"], false],
    ["openai:gpt-4o", ["openai:gpt-4o"], true],
    ["claude-sonnet-4-5", ["openai:*"], false],
  ] as const)("%s with the tenant's list %j: %s", (id, tenant, allowed) => {
    expect(isModelAllowed(catalog, tenant, id)).toBe(allowed);
  });

  it("allows any model when MODELS is not set, still narrowed by the tenant", () => {
    expect(isModelAllowed(null, null, "anything")).toBe(true);
    expect(isModelAllowed(null, ["openai:*"], "anything")).toBe(false);
  });

  it("lets a tenant's list narrow and never widen", () => {
    expect(covers("openai:gpt-4o*", "openai:gpt-4o-mini")).toBe(true);
    expect(covers("openai:gpt-4o*", "openai:gpt-4o-mini*")).toBe(true);
    expect(covers("openai:gpt-4o", "openai:gpt-4o*")).toBe(false);
    expect(covers("*", "*")).toBe(true);
    expect(uncoveredModels(catalog, ["openai:gpt-4o", "openai:*", "claude-sonnet-4-5"])).toEqual(["openai:*"]);
    expect(uncoveredModels(null, ["openai:*"])).toEqual([]);
  });

  it("chooses the default the tenant allows, else its first exact model", () => {
    expect(defaultModelFor("claude-sonnet-4-5", catalog, null)).toBe("claude-sonnet-4-5");
    expect(defaultModelFor("claude-sonnet-4-5", catalog, ["openai:gpt-4o*", "openai:gpt-4o-mini"])).toBe("openai:gpt-4o-mini");
    expect(defaultModelFor("claude-sonnet-4-5", catalog, ["openai:gpt-4o*"])).toBeNull();
  });

  it("echoes a chosen model as given, and names the field of a refused one", () => {
    expect(chooseModel("anthropic:claude-sonnet-4-5", catalog, null, "claude-sonnet-4-5")).toEqual({
      ok: true,
      model: "anthropic:claude-sonnet-4-5",
    });
    expect(chooseModel(undefined, catalog, null, "claude-sonnet-4-5")).toEqual({ ok: true, model: "claude-sonnet-4-5" });
    expect(chooseModel("openai:gpt-5", catalog, null, "claude-sonnet-4-5")).toMatchObject({ ok: false, error: { path: "body.model" } });
  });

  it("knows context sizes: what MODELS says, the family's, else the provider's default", () => {
    expect(contextTokensFor(catalog, "openai:llama3:8b")).toBe(8192);
    expect(contextTokensFor(catalog, "claude-sonnet-4-5")).toBe(200_000);
    expect(contextTokensFor(catalog, "openai:gpt-4o")).toBe(128_000);
    expect(contextTokensFor(null, "openai:my-local-model")).toBe(32_000);
  });
});

describe("MODELS", () => {
  const env = (MODELS: string | undefined, MODEL?: string) => ({ MODELS, MODEL }) as never;

  it("parses ids, patterns, stated context sizes and image support", () => {
    expect(
      parseConfig(
        env(
          '["claude-sonnet-4-5", {"id": "openai:llama3", "context_tokens": 8192}, "openai:gpt-4o*", {"id": "openai:llava", "images": true}]',
        ),
      ).models,
    ).toEqual([
      { pattern: "anthropic:claude-sonnet-4-5", contextTokens: null, images: null, reasoning: null },
      { pattern: "openai:llama3", contextTokens: 8192, images: null, reasoning: null },
      { pattern: "openai:gpt-4o*", contextTokens: null, images: null, reasoning: null },
      { pattern: "openai:llava", contextTokens: null, images: true, reasoning: null },
    ]);
    expect(parseConfig(env(undefined)).models).toBeNull();
  });

  it.each([
    ["not JSON", "[claude"],
    ["an empty list", "[]"],
    ["a bad id", '["no spaces allowed"]'],
    ["a tiny context", '[{"id": "x", "context_tokens": 10}]'],
    ["a default model outside the list", '["openai:gpt-4o"]'],
  ])("refuses %s at start-up", (_name, value) => expect(() => parseConfig(env(value))).toThrow(ConfigError));
});
