/** Which provider tools a session may declare: the model catalog decides, each problem at its tool's place. */
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config";
import { providerToolsFor } from "../../src/models/catalog";
import { providerToolProblems } from "../../src/sessions/prepare";
import type { ToolSpec } from "../../src/session-config/types";

const SEARCH: ToolSpec = { type: "provider", name: "web_search", max_uses: 5, allowed_domains: ["example.com"] };

describe("provider tools at creation", () => {
  it("takes a tool the catalog lists for the model", () => {
    expect(providerToolProblems([{ type: "builtin", name: "get_time" }, SEARCH], "claude-sonnet-4-5", null)).toEqual([]);
    expect(providerToolProblems([{ type: "provider", name: "code_execution" }], "anthropic:claude-opus-4-1", null)).toEqual([]);
  });

  it("refuses a tool the provider or the model lacks, at the tool's name", () => {
    expect(providerToolProblems([{ type: "builtin", name: "get_time" }, SEARCH], "openai:gpt-4o", null)).toEqual([
      { path: "body.tools.1.name", message: expect.stringContaining('has no provider tool "web_search"') },
    ]);
    expect(providerToolProblems([SEARCH], "claude-3-haiku-20240307", null).map((e) => e.path)).toEqual(["body.tools.0.name"]);
  });

  it("follows MODELS where it states a model's provider tools, and never for an OpenAI-compatible model", () => {
    const catalog = [{ pattern: "anthropic:claude-x*", contextTokens: null, providerTools: ["web_fetch" as const] }];
    expect(providerToolsFor(catalog, "claude-x-1")).toEqual(["web_fetch"]);
    expect(providerToolProblems([SEARCH], "claude-x-1", catalog).map((e) => e.path)).toEqual(["body.tools.0.name"]);
    expect(providerToolsFor([{ pattern: "*", contextTokens: null, providerTools: ["web_search"] }], "openai:gpt-4o")).toEqual([]);
    const env = { MODEL: "claude-x-1", MODELS: JSON.stringify([{ id: "claude-x*", provider_tools: ["web_fetch"] }]) };
    expect(parseConfig(env as never).models).toEqual([
      { pattern: "anthropic:claude-x*", contextTokens: null, images: null, reasoning: null, providerTools: ["web_fetch"] },
    ]);
    expect(() => parseConfig({ ...env, MODELS: JSON.stringify([{ id: "claude-x*", provider_tools: ["browse"] }]) } as never)).toThrow(
      /provider_tools/,
    );
  });

  it("refuses an option the tool does not take, and both domain lists at once", () => {
    const fetchWithLocation = { type: "provider", name: "web_fetch", user_location: { type: "approximate" } } as ToolSpec;
    expect(providerToolProblems([fetchWithLocation], "claude-sonnet-4-5", null).map((e) => e.path)).toEqual(["body.tools.0.user_location"]);
    const both: ToolSpec = { type: "provider", name: "web_search", allowed_domains: ["a.com"], blocked_domains: ["b.com"] };
    expect(providerToolProblems([both], "claude-sonnet-4-5", null).map((e) => e.path)).toEqual(["body.tools.0.blocked_domains"]);
  });
});
