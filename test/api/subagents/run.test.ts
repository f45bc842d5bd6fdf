/**
 * Sub-agents through the API on both providers' mocks: an `agent` tool's calls start child
 * sessions that run in parallel, and each child's end becomes its call's result exactly once.
 */
import { describe, expect, it } from "vitest";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { caller, createSession, getJson, messagesOf, text, toolCallsOf, toolUse, waitForStatus } from "../sessions/helpers";
import { agentOn, agentTool, author, childrenOf, PROVIDERS, session, setLimits } from "./helpers";

describe.each(PROVIDERS)("sub-agents on the $name provider", (provider) => {
  it("runs two children in parallel and gives each result to its call once; the parent then finishes", async () => {
    const who = await author();
    const researcher = await agentOn(who, provider, { system: "You research." });
    const writer = await agentOn(who, provider, { system: "You write." });
    await researcher.model.script({ reply: { content: [text("three sources found")] } });
    await writer.model.script({ reply: { content: [text("a draft in two lines")] } });
    const parentModel = mockModel(uniqueKey("model"));
    await parentModel.script(
      { reply: { content: [toolUse("call_research", "research", { input: "find sources" }), toolUse("call_write", "write", { input: "write a draft" })] } },
      { reply: { content: [text("both came back")] } },
    );
    const parent = await createSession(who, {
      input: "research and write",
      model: provider.id(parentModel.key),
      tools: [agentTool("research", researcher.id), agentTool("write", writer.id)],
    });
    const done = await waitForStatus(who, parent.id, ["done", "failed", "cancelled"], 20_000);
    expect(done, done.error ?? "").toMatchObject({ status: "done", stop_reason: "end_turn" });

    const calls = await toolCallsOf(who, parent.id);
    expect(calls.map((c) => [c.id, c.status, c.output, c.is_error])).toEqual([
      ["call_research", "done", "three sources found", false],
      ["call_write", "done", "a draft in two lines", false],
    ]);
    // One tool_result message with both results, each once.
    const results = (await messagesOf(who, parent.id)).flatMap((m) => m.content).filter((b) => b.type === "tool_result");
    expect(results).toEqual([
      { type: "tool_result", tool_use_id: "call_research", content: "three sources found" },
      { type: "tool_result", tool_use_id: "call_write", content: "a draft in two lines" },
    ]);
    expect(await parentModel.requests()).toHaveLength(2);

    const children = await childrenOf(who, parent.id);
    expect(children).toHaveLength(2);
    for (const child of children) {
      const full = await session(who, child.id);
      expect(full).toMatchObject({ status: "done", created_by: who.subject, parent: { session_id: parent.id } });
    }
    expect(children.map((c) => c.parent_session_id)).toEqual([parent.id, parent.id]);
    const byCall = Object.fromEntries(await Promise.all(children.map(async (c) => [(await session(who, c.id)).parent!.tool_call_id, (await session(who, c.id)).agent!.id])));
    expect(byCall).toEqual({ call_research: researcher.id, call_write: writer.id });
    void getJson;
    void caller;
    void setLimits;
  }, 30_000);
});
