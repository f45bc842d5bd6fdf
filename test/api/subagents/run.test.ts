/**
 * Sub-agents through the API on both providers' mocks: an `agent` tool's calls start child
 * sessions that run in parallel, and each child's end becomes its call's result exactly once.
 */
import { describe, expect, it } from "vitest";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { createSession, messagesOf, text, toolCallsOf, toolUse, waitForStatus } from "../sessions/helpers";
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
      {
        reply: {
          content: [
            toolUse("call_research", "research", { input: "find sources" }),
            toolUse("call_write", "write", { input: "write a draft" }),
          ],
        },
      },
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
    const byCall = Object.fromEntries(
      await Promise.all(children.map(async (c) => [(await session(who, c.id)).parent!.tool_call_id, (await session(who, c.id)).agent!.id])),
    );
    expect(byCall).toEqual({ call_research: researcher.id, call_write: writer.id });
  }, 30_000);

  it("finishes a parent with two children when the tenant has one run slot: the parent waits holding none, the children run in turn", async () => {
    const who = await author();
    await setLimits(who.tenantId, { max_concurrent_runs: 1 });
    const helper = await agentOn(who, provider);
    await helper.model.script({ reply: { content: [text("first")] } }, { reply: { content: [text("second")] } });
    const parentModel = mockModel(uniqueKey("model"));
    await parentModel.script(
      { reply: { content: [toolUse("call_a", "helper", { input: "one" }), toolUse("call_b", "helper", { input: "two" })] } },
      { reply: { content: [text("all done")] } },
    );
    const parent = await createSession(who, { input: "go", model: provider.id(parentModel.key), tools: [agentTool("helper", helper.id)] });
    const done = await waitForStatus(who, parent.id, ["done", "failed", "cancelled"], 30_000);
    expect(done, done.error ?? "").toMatchObject({ status: "done", stop_reason: "end_turn" });
    const outputs = (await toolCallsOf(who, parent.id)).map((c) => [c.status, c.is_error]);
    expect(outputs).toEqual([
      ["done", false],
      ["done", false],
    ]);
    expect((await toolCallsOf(who, parent.id)).map((c) => c.output).sort()).toEqual(["first", "second"]);
    expect(await helper.model.requests()).toHaveLength(2);
  }, 45_000);

  it("sums the usage of children and grandchildren into usage.subagents, and the parent's own usage stays its own", async () => {
    const who = await author();
    const leaf = await agentOn(who, provider);
    await leaf.model.script({ reply: { content: [text("leaf answer")], usage: { input_tokens: 7, output_tokens: 3 } } });
    const middle = await agentOn(who, provider, { tools: [agentTool("leaf", leaf.id)] });
    await middle.model.script(
      { reply: { content: [toolUse("call_leaf", "leaf", { input: "dig" })], usage: { input_tokens: 11, output_tokens: 5 } } },
      { reply: { content: [text("middle answer")], usage: { input_tokens: 13, output_tokens: 2 } } },
    );
    const parentModel = mockModel(uniqueKey("model"));
    await parentModel.script(
      { reply: { content: [toolUse("call_mid", "middle", { input: "delegate" })], usage: { input_tokens: 100, output_tokens: 10 } } },
      { reply: { content: [text("top answer")], usage: { input_tokens: 120, output_tokens: 20 } } },
    );
    const parent = await createSession(who, { input: "go", model: provider.id(parentModel.key), tools: [agentTool("middle", middle.id)] });
    const done = await waitForStatus(who, parent.id, ["done", "failed", "cancelled"], 30_000);
    expect(done, done.error ?? "").toMatchObject({ status: "done" });
    const [mid] = await childrenOf(who, parent.id);
    const midSession = await session(who, mid!.id);
    const [leafRow] = await childrenOf(who, mid!.id);
    const leafSession = await session(who, leafRow!.id);
    expect(leafSession.usage).toMatchObject({
      steps: 1,
      input_tokens: 7,
      output_tokens: 3,
      subagents: { steps: 0, input_tokens: 0, output_tokens: 0 },
    });
    expect(midSession.usage).toMatchObject({
      steps: 2,
      input_tokens: 24,
      output_tokens: 7,
      subagents: { steps: 1, input_tokens: 7, output_tokens: 3 },
    });
    expect(done.usage).toMatchObject({
      steps: 2,
      input_tokens: 220,
      output_tokens: 30,
      subagents: { steps: 3, input_tokens: 31, output_tokens: 10 },
    });
    expect((await toolCallsOf(who, parent.id))[0]).toMatchObject({ output: "middle answer", is_error: false });
  }, 45_000);
});
