/** Provider tools through the API: every door that sets a session's model and tools refuses one the model lacks, at its place. */
import { describe, expect, it } from "vitest";
import { callJson, readProblem } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { caller, createSession, waitForStatus } from "./helpers";
import { author, createAgent, patchAgent } from "../agents/helpers";

const SEARCH = { type: "provider", name: "web_search", max_uses: 2 };

async function pathsOf(res: Response): Promise<string[]> {
  expect(res.status).toBe(400);
  return (await readProblem(res)).errors?.map((e) => e.path) ?? [];
}

describe("provider tools on a session", () => {
  it.each([
    ["an OpenAI-compatible model", "openai:gpt-4o"],
    ["an Anthropic model the catalog gives none", "claude-3-haiku-20240307"],
  ])("refuses one on %s with a 400 at the tool's name", async (_name, model) => {
    const who = await caller();
    const res = await callJson("/v1/sessions", "POST", { input: "search", model, tools: [SEARCH] }, who.headers);
    expect(await pathsOf(res)).toEqual(["body.tools.0.name"]);
  });

  it("passes a tool the model has to Anthropic as its server tool, with its options", async () => {
    const who = await caller();
    const claude = mockModel(uniqueKey("claude-sonnet-4-5"));
    const session = await createSession(who, { input: "search", model: claude.key, tools: [SEARCH] });
    expect(session.tools).toEqual([SEARCH]);
    await waitForStatus(who, session.id, ["done", "failed"]);
    expect((await claude.requests())[0]!.body).toMatchObject({ tools: [{ type: "web_search_20250305", name: "web_search", max_uses: 2 }] });
  });
});

describe("provider tools in an agent's definition", () => {
  it("are checked at creation, again when a PATCH changes the model, and on the agent's sessions", async () => {
    const who = await author();
    const refused = await callJson("/v1/agents", "POST", { name: "searcher", model: "openai:gpt-4o", tools: [SEARCH] }, who.headers);
    expect(await pathsOf(refused)).toEqual(["body.tools.0.name"]);

    const agent = await createAgent(who, { name: "searcher", model: "claude-sonnet-4-5", tools: [SEARCH] });
    expect(await pathsOf(await patchAgent(who, agent.id, { model: "openai:gpt-4o" }))).toContain("body.tools.0.name");
    expect(await pathsOf(await patchAgent(who, agent.id, { model: "claude-3-haiku-20240307" }))).toContain("body.tools.0.name");

    const plain = await createAgent(who, { name: "plain", model: "openai:gpt-4o" });
    expect(await pathsOf(await patchAgent(who, plain.id, { tools: [SEARCH] }))).toContain("body.tools.0.name");
  });
});
