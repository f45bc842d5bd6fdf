/**
 * Sub-agents and the controls: a child that waits for a person is approved on its own session
 * and the tree goes on; a cancel cascades through every level; a delete takes the children with
 * it; a pause leaves them running; the depth and count limits give error results and start nothing.
 */
import { describe, expect, it } from "vitest";
import { call } from "../../support/api";
import { type Watch, watchSse } from "../../support/event-client";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { type Caller, createSession, post, text, toolCallsOf, toolUse, waitForStatus } from "../sessions/helpers";
import { agentOn, agentTool, author, childrenOf, eventually, PROVIDERS, session, setLimits } from "./helpers";

const APPROVED_TIME = { type: "builtin", name: "get_time", requires_approval: true };

async function watch(who: Caller, id: string): Promise<Watch> {
  const res = await call(`/v1/sessions/${id}/events?after=0`, { headers: { ...who.headers, Accept: "text/event-stream" } });
  expect(res.status).toBe(200);
  return watchSse(res);
}

type SubagentFrame = { tool_call_id: string; session_id: string; status: string; stop_reason: string | null };
const subagentFrames = (w: Watch) => w.frames.filter((f) => f.type === "subagent").map((f) => f.data as SubagentFrame);

describe.each(PROVIDERS)("sub-agents and the controls on the $name provider", (provider) => {
  it("shows a child's wait for approval in the parent's events; approving it on the child lets the parent finish", async () => {
    const who = await author();
    const clerk = await agentOn(who, provider, { tools: [APPROVED_TIME] });
    await clerk.model.script({ reply: { content: [toolUse("call_time", "get_time")] } }, { reply: { content: [text("it is late")] } });
    const parentModel = mockModel(uniqueKey("model"));
    await parentModel.script(
      { reply: { content: [toolUse("call_clerk", "clerk", { input: "what time is it?" })] } },
      { reply: { content: [text("the clerk says it is late")] } },
    );
    const parent = await createSession(who, {
      input: "ask the clerk",
      model: provider.id(parentModel.key),
      tools: [agentTool("clerk", clerk.id)],
    });
    await waitForStatus(who, parent.id, ["waiting_subagents"], 10_000);
    const events = await watch(who, parent.id);
    await events.until((w) => subagentFrames(w).some((f) => f.status === "waiting_approval"), "the child waiting for approval");
    const [child] = await childrenOf(who, parent.id);
    expect((await session(who, child!.id)).status).toBe("waiting_approval");

    const approved = await post(who, `/v1/sessions/${child!.id}/tool-calls/call_time/approve`);
    expect(approved.status).toBe(200);
    const done = await waitForStatus(who, parent.id, ["done", "failed", "cancelled"], 15_000);
    expect(done, done.error ?? "").toMatchObject({ status: "done" });
    expect((await toolCallsOf(who, parent.id))[0]).toMatchObject({ id: "call_clerk", status: "done", output: "it is late" });
    await events.until((w) => subagentFrames(w).some((f) => f.status === "done"), "the child's end");
    const statuses = subagentFrames(events).map((f) => [f.tool_call_id, f.session_id, f.status]);
    expect(statuses[0]).toEqual(["call_clerk", child!.id, expect.stringMatching(/^(queued|running)$/)]);
    expect(statuses.map((s) => s[2])).toContain("waiting_approval");
    expect(statuses[statuses.length - 1]).toEqual(["call_clerk", child!.id, "done"]);
    // Each status is told once: no two frames in a row say the same.
    for (let i = 1; i < statuses.length; i++) expect(statuses[i]![2]).not.toBe(statuses[i - 1]![2]);
    events.stop();
  }, 40_000);

  it("cancels a parent's live children and theirs, three levels down, and each call closes once", async () => {
    const who = await author();
    const leaf = await agentOn(who, provider, { tools: [APPROVED_TIME] });
    await leaf.model.script({ reply: { content: [toolUse("call_time", "get_time")] } });
    const middle = await agentOn(who, provider, { tools: [agentTool("leaf", leaf.id)] });
    await middle.model.script({ reply: { content: [toolUse("call_leaf", "leaf", { input: "wait" })] } });
    const parentModel = mockModel(uniqueKey("model"));
    await parentModel.script({ reply: { content: [toolUse("call_mid", "middle", { input: "delegate" })] } });
    const parent = await createSession(who, { input: "go", model: provider.id(parentModel.key), tools: [agentTool("middle", middle.id)] });
    const [mid] = await eventually(
      () => childrenOf(who, parent.id),
      (rows) => rows.length === 1,
    );
    const [leafRow] = await eventually(
      () => childrenOf(who, mid!.id),
      (rows) => rows.length === 1,
    );
    await waitForStatus(who, leafRow!.id, ["waiting_approval"], 10_000);
    await waitForStatus(who, parent.id, ["waiting_subagents"], 10_000);

    const cancelled = await post(who, `/v1/sessions/${parent.id}/cancel`);
    expect(cancelled.status).toBe(200);
    await waitForStatus(who, mid!.id, ["cancelled"], 10_000);
    await waitForStatus(who, leafRow!.id, ["cancelled"], 10_000);
    expect((await session(who, parent.id)).status).toBe("cancelled");
    for (const [id, callId] of [
      [parent.id, "call_mid"],
      [mid!.id, "call_leaf"],
      [leafRow!.id, "call_time"],
    ] as const) {
      const calls = await toolCallsOf(who, id);
      expect(calls.map((c) => [c.id, c.status, c.is_error])).toEqual([[callId, "error", true]]);
    }
  }, 40_000);

  it("cancels the child of a call that a message with if_running: interrupt closed, and runs the new message", async () => {
    const who = await author();
    const clerk = await agentOn(who, provider, { tools: [APPROVED_TIME] });
    await clerk.model.script({ reply: { content: [toolUse("call_time", "get_time")] } });
    const parentModel = mockModel(uniqueKey("model"));
    await parentModel.script(
      { reply: { content: [toolUse("call_clerk", "clerk", { input: "time?" })] } },
      { reply: { content: [text("never mind then")] } },
    );
    const parent = await createSession(who, { input: "go", model: provider.id(parentModel.key), tools: [agentTool("clerk", clerk.id)] });
    const [child] = await eventually(
      () => childrenOf(who, parent.id),
      (rows) => rows.length === 1,
    );
    await waitForStatus(who, child!.id, ["waiting_approval"], 10_000);
    await waitForStatus(who, parent.id, ["waiting_subagents"], 10_000);
    const res = await post(who, `/v1/sessions/${parent.id}/messages`, { input: "forget it", if_running: "interrupt" });
    expect(res.status).toBe(202);
    await waitForStatus(who, child!.id, ["cancelled"], 10_000);
    const done = await waitForStatus(who, parent.id, ["done", "failed"], 10_000);
    expect(done).toMatchObject({ status: "done" });
    expect((await toolCallsOf(who, parent.id))[0]).toMatchObject({
      id: "call_clerk",
      status: "error",
      is_error: true,
      output: "cancelled before it finished",
    });
  }, 40_000);

  it("deletes a parent's children and theirs with it", async () => {
    const who = await author();
    const leaf = await agentOn(who, provider);
    await leaf.model.script({ reply: { content: [text("leaf")] } });
    const middle = await agentOn(who, provider, { tools: [agentTool("leaf", leaf.id)] });
    await middle.model.script(
      { reply: { content: [toolUse("call_leaf", "leaf", { input: "x" })] } },
      { reply: { content: [text("middle")] } },
    );
    const parentModel = mockModel(uniqueKey("model"));
    await parentModel.script(
      { reply: { content: [toolUse("call_mid", "middle", { input: "y" })] } },
      { reply: { content: [text("top")] } },
    );
    const parent = await createSession(who, { input: "go", model: provider.id(parentModel.key), tools: [agentTool("middle", middle.id)] });
    await waitForStatus(who, parent.id, ["done"], 15_000);
    const [mid] = await childrenOf(who, parent.id);
    const [leafRow] = await childrenOf(who, mid!.id);

    const deleted = await call(`/v1/sessions/${parent.id}`, { method: "DELETE", headers: who.headers });
    expect(deleted.status).toBe(204);
    for (const id of [parent.id, mid!.id, leafRow!.id]) {
      const res = await call(`/v1/sessions/${id}`, { headers: who.headers });
      expect(res.status, id).toBe(404);
      await res.body?.cancel();
    }
    expect(await childrenOf(who, parent.id)).toEqual([]);
  }, 40_000);

  it("pauses the parent alone: its child runs on, and the result waits for the resume", async () => {
    const who = await author();
    const clerk = await agentOn(who, provider, { tools: [APPROVED_TIME] });
    await clerk.model.script({ reply: { content: [toolUse("call_time", "get_time")] } }, { reply: { content: [text("noon")] } });
    const parentModel = mockModel(uniqueKey("model"));
    await parentModel.script(
      { reply: { content: [toolUse("call_clerk", "clerk", { input: "time?" })] } },
      { reply: { content: [text("noon it is")] } },
    );
    const parent = await createSession(who, { input: "go", model: provider.id(parentModel.key), tools: [agentTool("clerk", clerk.id)] });
    const [child] = await eventually(
      () => childrenOf(who, parent.id),
      (rows) => rows.length === 1,
    );
    await waitForStatus(who, child!.id, ["waiting_approval"], 10_000);
    await waitForStatus(who, parent.id, ["waiting_subagents"], 10_000);
    expect((await post(who, `/v1/sessions/${parent.id}/pause`)).status).toBe(200);
    expect((await session(who, child!.id)).status).toBe("waiting_approval");
    expect((await post(who, `/v1/sessions/${child!.id}/tool-calls/call_time/approve`)).status).toBe(200);
    await waitForStatus(who, child!.id, ["done"], 10_000);
    // The result is the call's, given once, but the paused parent does not go on.
    await eventually(
      () => toolCallsOf(who, parent.id),
      (calls) => calls[0]?.status === "done",
    );
    expect((await session(who, parent.id)).status).toBe("paused");
    expect((await post(who, `/v1/sessions/${parent.id}/resume`)).status).toBe(200);
    const done = await waitForStatus(who, parent.id, ["done", "failed"], 10_000);
    expect(done).toMatchObject({ status: "done" });
    expect((await toolCallsOf(who, parent.id))[0]).toMatchObject({ output: "noon", is_error: false });
  }, 40_000);

  it("gives an error result past max_agent_depth and past max_subagents_per_run, and starts nothing for them", async () => {
    const who = await author();
    await setLimits(who.tenantId, { max_agent_depth: 1, max_subagents_per_run: 2 });
    const leaf = await agentOn(who, provider);
    const middle = await agentOn(who, provider, { tools: [agentTool("leaf", leaf.id)] });
    // The middle agent is at depth 1: its own agent call would make depth 2.
    await middle.model.script(
      { reply: { content: [toolUse("call_deep", "leaf", { input: "deeper" })] } },
      { reply: { content: [text("could not go deeper")] } },
    );
    await middle.model.script({ reply: { content: [text("second")] } });
    const parentModel = mockModel(uniqueKey("model"));
    await parentModel.script(
      {
        reply: {
          content: [
            toolUse("call_1", "middle", { input: "a" }),
            toolUse("call_2", "middle", { input: "b" }),
            toolUse("call_3", "middle", { input: "c" }),
          ],
        },
      },
      { reply: { content: [text("done")] } },
    );
    const parent = await createSession(who, { input: "go", model: provider.id(parentModel.key), tools: [agentTool("middle", middle.id)] });
    const done = await waitForStatus(who, parent.id, ["done", "failed"], 20_000);
    expect(done, done.error ?? "").toMatchObject({ status: "done" });
    const calls = await toolCallsOf(who, parent.id);
    expect(calls[2]).toMatchObject({
      id: "call_3",
      status: "error",
      is_error: true,
      output: expect.stringContaining("max_subagents_per_run"),
    });
    expect(calls.slice(0, 2).map((c) => c.is_error)).toEqual([false, false]);
    const children = await childrenOf(who, parent.id);
    expect(children).toHaveLength(2);
    const deep = (await Promise.all(children.map((c) => toolCallsOf(who, c.id)))).flat().filter((c) => c.id === "call_deep");
    expect(deep).toHaveLength(1);
    expect(deep[0]).toMatchObject({ status: "error", is_error: true, output: expect.stringContaining("max_agent_depth") });
    for (const child of children) expect(await childrenOf(who, child.id)).toEqual([]);
    expect(await leaf.model.requests()).toHaveLength(0);
  }, 40_000);
});
