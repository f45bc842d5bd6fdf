/**
 * Bad input around sub-agents: an agent tool naming an unknown or archived agent is a 400 at its
 * path when the session (or an agent definition) is created, and a call whose input is not
 * `{ input: string }` is an error result for the model, with no child started.
 */
import { describe, expect, it } from "vitest";
import { callJson, readProblem } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { archive, createAgent } from "../agents/helpers";
import { createSession, text, toolCallsOf, toolUse, waitForStatus } from "../sessions/helpers";
import { agentOn, agentTool, author, childrenOf, PROVIDERS } from "./helpers";

const UNKNOWN_AGENT = "agt_AAAAAAAAAAAAAAAAAAAAAAAA";

describe("agent tools at creation", () => {
  it("refuses an unknown agent, an archived one and an unknown alias with a 400 at the tool's agent", async () => {
    const who = await author();
    const live = await agentOn(who, PROVIDERS[0]);
    const gone = await agentOn(who, PROVIDERS[0]);
    expect((await archive(who, gone.id)).status).toBe(204);
    const res = await callJson(
      "/v1/sessions",
      "POST",
      {
        tools: [
          agentTool("ok", live.id),
          agentTool("unknown", UNKNOWN_AGENT),
          agentTool("archived", gone.id),
          agentTool("alias", `${live.id}@nowhere`),
        ],
      },
      who.headers,
    );
    expect(res.status).toBe(400);
    const problem = await readProblem(res);
    expect(problem.errors?.map((e) => e.path).sort()).toEqual(["body.tools.1.agent", "body.tools.2.agent", "body.tools.3.agent"]);
  });

  it("refuses a reference that is not one at the schema, and takes a live agent by version and by alias", async () => {
    const who = await author();
    const bad = await callJson("/v1/sessions", "POST", { tools: [agentTool("x", "not-an-agent")] }, who.headers);
    expect(bad.status).toBe(400);
    expect((await readProblem(bad)).errors?.[0]?.path).toBe("body.tools.0.agent");
    const live = await agentOn(who, PROVIDERS[0]);
    const session = await createSession(who, { tools: [agentTool("pinned", `${live.id}@1`)] });
    expect(session.tools[0]).toMatchObject({ type: "agent", agent: `${live.id}@1` });
  });

  it("refuses an agent definition whose agent tool names an unknown agent, at the same path", async () => {
    const who = await author();
    const res = await callJson(
      "/v1/agents",
      "POST",
      { name: uniqueKey("a").slice(0, 60), tools: [agentTool("helper", UNKNOWN_AGENT)] },
      who.headers,
    );
    expect(res.status).toBe(400);
    expect((await readProblem(res)).errors?.map((e) => e.path)).toEqual(["body.tools.0.agent"]);
    const helper = await agentOn(who, PROVIDERS[0]);
    await createAgent(who, { name: uniqueKey("b").slice(0, 60), tools: [agentTool("helper", helper.id)] });
  });
});

describe.each(PROVIDERS)("an agent call's input on the $name provider", (provider) => {
  it("gives the model an error result for input that is not { input: string }, and starts no child", async () => {
    const who = await author();
    const helper = await agentOn(who, provider);
    const parentModel = mockModel(uniqueKey("model"));
    await parentModel.script(
      { reply: { content: [toolUse("call_bad", "helper", { task: "no input field" }), toolUse("call_empty", "helper", { input: 42 })] } },
      { reply: { content: [text("gave up")] } },
    );
    const parent = await createSession(who, { input: "go", model: provider.id(parentModel.key), tools: [agentTool("helper", helper.id)] });
    const done = await waitForStatus(who, parent.id, ["done", "failed"], 15_000);
    expect(done, done.error ?? "").toMatchObject({ status: "done" });
    const calls = await toolCallsOf(who, parent.id);
    expect(calls.map((c) => [c.id, c.status, c.is_error])).toEqual([
      ["call_bad", "error", true],
      ["call_empty", "error", true],
    ]);
    expect(calls[0]!.output).toContain("input");
    expect(await childrenOf(who, parent.id)).toEqual([]);
    expect(await helper.model.requests()).toHaveLength(0);
  }, 30_000);
});
