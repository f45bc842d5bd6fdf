/**
 * Answers through A2A: answering only some of the waiting calls hands the task back at once with
 * the calls still waiting (never a stream that hangs), several answered at once, and an answer
 * naming an earlier task of the context refused; an earlier task keeps the state its run ended in.
 */
import { describe, expect, it } from "vitest";
import { callJson } from "../../support/api";
import { mockHook, uniqueKey } from "../../support/mock-client";
import { text, toolUse } from "../sessions/helpers";
import { author } from "../agents/helpers";
import { agentScripted, rpc, say, states, subscribe, type TaskJson } from "./helpers";

const approval = [{ type: "builtin", name: "get_time", requires_approval: true }];
const waitingFor = (task: TaskJson) => (task.status.message?.parts[1]?.data as { waiting_for: { tool_call_id: string }[] }).waiting_for;
const approve = (task: TaskJson, ...callIds: string[]) => ({
  message: {
    messageId: crypto.randomUUID(),
    role: "ROLE_USER",
    taskId: task.id,
    contextId: task.contextId,
    parts: callIds.map((id) => ({ data: { tool_call_id: id, approved: true } })),
  },
});

async function streamed(who: { headers: Record<string, string> }, agentId: string, params: unknown): Promise<Record<string, unknown>[]> {
  const res = await callJson(
    `/v1/agents/${agentId}/a2a`,
    "POST",
    { jsonrpc: "2.0", id: "s", method: "SendStreamingMessage", params },
    who.headers,
  );
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  return (await res.text())
    .split("\n\n")
    .filter((event) => event.startsWith("data: "))
    .map((event) => (JSON.parse(event.slice(6)) as { result: Record<string, unknown> }).result);
}

describe("A2A answers", () => {
  it("hands the task back at once, naming the calls still waiting, when only some are answered", async () => {
    const who = await author();
    const agent = await agentScripted(
      who,
      [
        {
          reply: { content: [toolUse("toolu_a", "get_time", {}), toolUse("toolu_b", "get_time", {}), toolUse("toolu_c", "get_time", {})] },
        },
        { reply: { content: [text("all three")] } },
      ],
      approval,
    );
    const task = ((await rpc(who, agent.id, "SendMessage", say("times?"))).result as { task: TaskJson }).task;
    expect(waitingFor(task).map((call) => call.tool_call_id)).toEqual(["toolu_a", "toolu_b", "toolu_c"]);

    const once = ((await rpc(who, agent.id, "SendMessage", approve(task, "toolu_a"))).result as { task: TaskJson }).task;
    expect(once).toMatchObject({ id: task.id, status: { state: "TASK_STATE_INPUT_REQUIRED" } });
    expect(waitingFor(once).map((call) => call.tool_call_id)).toEqual(["toolu_b", "toolu_c"]);

    // Streamed, the answer's task comes first, and the stream ends at the wait naming the call left.
    const stream = await streamed(who, agent.id, approve(task, "toolu_b"));
    expect((stream[0] as { task?: TaskJson }).task?.id).toBe(task.id);
    expect(states(stream).at(-1)).toBe("TASK_STATE_INPUT_REQUIRED");
    const last = stream.at(-1) as { task?: TaskJson; statusUpdate?: TaskJson };
    expect(waitingFor((last.task ?? last.statusUpdate)!).map((call) => call.tool_call_id)).toEqual(["toolu_c"]);

    const done = await streamed(who, agent.id, approve(task, "toolu_c"));
    expect(states(done)[0]).toBe("TASK_STATE_WORKING");
    expect(states(done).at(-1)).toBe("TASK_STATE_COMPLETED");
    expect((done[0] as { task?: TaskJson }).task?.id).toBe(task.id);
  });

  it("decides several calls with one message, and refuses an answer that names an earlier task", async () => {
    const who = await author();
    const agent = await agentScripted(
      who,
      [
        { reply: { content: [text("first")] } },
        { reply: { content: [toolUse("toolu_x", "get_time", {}), toolUse("toolu_y", "get_time", {})] } },
        { reply: { content: [text("both")] } },
      ],
      approval,
    );
    const first = ((await rpc(who, agent.id, "SendMessage", say("one"))).result as { task: TaskJson }).task;
    const second = ((await rpc(who, agent.id, "SendMessage", say("two", { contextId: first.contextId }))).result as { task: TaskJson })
      .task;
    expect(second.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const stale = await rpc(who, agent.id, "SendMessage", approve(first, "toolu_x"));
    expect(stale.error).toMatchObject({ code: -32602, message: expect.stringContaining("is over") });
    const done = ((await rpc(who, agent.id, "SendMessage", approve(second, "toolu_x", "toolu_y"))).result as { task: TaskJson }).task;
    expect(done).toMatchObject({ id: second.id, status: { state: "TASK_STATE_COMPLETED" } });
    expect((await rpc(who, agent.id, "GetTask", { id: first.id })).result).toMatchObject({ status: { state: "TASK_STATE_COMPLETED" } });
    // Text naming a task that is over is refused, not quietly made a new task.
    const late = await rpc(who, agent.id, "SendMessage", say("three", { contextId: first.contextId, taskId: second.id }));
    expect(late.error).toMatchObject({ code: -32004, message: expect.stringContaining("is over") });
  });

  it("reads an earlier cancelled task back as canceled after the context ran again, with no answer artifact", async () => {
    const who = await author();
    const hook = mockHook(uniqueKey("held"));
    await hook.script({ hold: true, then: { status: 200, body: { output: "late" } } });
    const lookup = { type: "webhook", name: "lookup", description: "Looks up.", url: hook.url, input_schema: { type: "object" } };
    const agent = await agentScripted(
      who,
      [{ reply: { content: [toolUse("toolu_h", "lookup", {})] } }, { reply: { content: [text("second answer")] } }],
      [lookup],
    );
    const started = await rpc(who, agent.id, "SendMessage", { ...say("look"), configuration: { returnImmediately: true } });
    const first = (started.result as { task: TaskJson }).task;
    await hook.waitForRequests(1);
    expect((await rpc(who, agent.id, "CancelTask", { id: first.id })).result).toMatchObject({ status: { state: "TASK_STATE_CANCELED" } });
    await hook.release();
    const second = ((await rpc(who, agent.id, "SendMessage", say("again", { contextId: first.contextId }))).result as { task: TaskJson })
      .task;
    expect(second.status.state).toBe("TASK_STATE_COMPLETED");
    const earlier = (await rpc(who, agent.id, "GetTask", { id: first.id })).result as TaskJson & { artifacts?: unknown[] };
    expect(earlier).toMatchObject({ id: first.id, status: { state: "TASK_STATE_CANCELED" } });
    expect(earlier.artifacts ?? []).toEqual([]);
    expect(states(await subscribe(who, agent.id, first.id))).toEqual(["TASK_STATE_CANCELED"]);
  });
});
