/**
 * AG-UI end to end against `wrangler dev`, with `HttpAgent` of the published `@ag-ui/client`
 * unchanged: a run with text and a platform tool (and the same thread continued), a frontend
 * tool the input declares answered by the next run's tool message, and an approval that ends a
 * run with an interrupt, decided by the next run's `resume`.
 */
import { HttpAgent, type AgentSubscriber, type BaseEvent } from "@ag-ui/client";
import { beforeAll, describe, expect, it } from "vitest";
import type { ModelStep } from "../support/mock-protocol";
import { say } from "./support/scenario";
import { type SharedStack, sharedStack, uniqueName } from "./support/stack";
import { tokenMinter } from "./support/tokens";

const SCOPES = ["sessions:read", "sessions:write", "agents:write"] as const;

function callTool(id: string, name: string, input: Record<string, unknown> = {}): ModelStep {
  return { reply: { content: [{ type: "tool_use", id, name, input }] } };
}

/** Every event a run delivered, through the client's own subscriber interface. */
function recorder(): { events: BaseEvent[]; subscriber: AgentSubscriber } {
  const events: BaseEvent[] = [];
  return { events, subscriber: { onEvent: ({ event }) => void events.push(event) } };
}

const typesOf = (events: BaseEvent[]) => events.map((event) => event.type);

describe("AG-UI", () => {
  let stack: SharedStack;
  let mint: Awaited<ReturnType<typeof tokenMinter>>;

  beforeAll(async () => {
    stack = await sharedStack();
    mint = await tokenMinter(stack.platform.signingKey);
  });

  async function agentFor(tools: unknown[], steps: ModelStep[]): Promise<{ agent: HttpAgent; token: string }> {
    const token = await mint({ tenantId: uniqueName("tenant"), subject: "ag-ui-user", scopes: [...SCOPES] });
    const model = stack.mock.model(uniqueName("model"));
    await model.script(...steps);
    const created = await fetch(`${stack.platform.url}/v1/agents`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: uniqueName("helper"), description: "helps", model: model.key, tools }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const agent = new HttpAgent({
      url: `${stack.platform.url}/v1/agents/${id}/ag-ui`,
      headers: { authorization: `Bearer ${token}` },
      threadId: uniqueName("thread"),
    });
    return { agent, token };
  }

  it("runs text and a platform tool, and the same thread goes on in the same session", async () => {
    const { agent, token } = await agentFor(
      [{ type: "builtin", name: "get_time" }],
      [callTool("toolu_t", "get_time"), say("It is noon."), say("Still noon.")],
    );
    agent.addMessage({ id: crypto.randomUUID(), role: "user", content: "what time is it?" });
    const { events, subscriber } = recorder();
    const { newMessages } = await agent.runAgent({}, subscriber);
    expect(typesOf(events)).toEqual(
      expect.arrayContaining([
        "RUN_STARTED",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
      ]),
    );
    const call = newMessages.find((message) => message.role === "assistant" && message.toolCalls?.length);
    expect(call).toMatchObject({ toolCalls: [{ id: "toolu_t", function: { name: "get_time" } }] });
    expect(newMessages).toContainEqual(expect.objectContaining({ role: "tool", toolCallId: "toolu_t" }));
    expect(newMessages.at(-1)).toMatchObject({ role: "assistant", content: "It is noon." });

    agent.addMessage({ id: crypto.randomUUID(), role: "user", content: "and now?" });
    const again = await agent.runAgent();
    expect(again.newMessages.at(-1)).toMatchObject({ role: "assistant", content: "Still noon." });
    const listed = await fetch(`${stack.platform.url}/v1/sessions`, { headers: { authorization: `Bearer ${token}` } });
    const sessions = ((await listed.json()) as { data: { id: string }[] }).data;
    expect(sessions).toHaveLength(1);
    const session = await fetch(`${stack.platform.url}/v1/sessions/${sessions[0]!.id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(await session.json()).toMatchObject({ metadata: { chat_id: agent.threadId }, status: "done" });
  });

  it("offers a frontend tool the input declares, and the next run's tool message answers its call", async () => {
    const { agent } = await agentFor([], [callTool("toolu_c", "pick_color", { from: "sky" }), say("You picked teal.")]);
    const tools = [
      {
        name: "pick_color",
        description: "Asks the person for a color.",
        parameters: { type: "object", properties: { from: { type: "string" } } },
      },
    ];
    agent.addMessage({ id: crypto.randomUUID(), role: "user", content: "pick a color" });
    let pending: string[] | undefined;
    await agent.runAgent(
      { tools },
      { onRunFinishedEvent: (params) => void (pending = "pendingToolCallIds" in params ? params.pendingToolCallIds : []) },
    );
    expect(pending).toEqual(["toolu_c"]);
    const asked = agent.messages.find((message) => message.role === "assistant" && message.toolCalls?.length);
    expect(asked).toMatchObject({ toolCalls: [{ id: "toolu_c", function: { name: "pick_color", arguments: '{"from":"sky"}' } }] });

    agent.addMessage({ id: crypto.randomUUID(), role: "tool", toolCallId: "toolu_c", content: "teal" });
    const { events, subscriber } = recorder();
    const { newMessages } = await agent.runAgent({ tools }, subscriber);
    expect(typesOf(events)).not.toContain("TOOL_CALL_RESULT");
    expect(newMessages.at(-1)).toMatchObject({ role: "assistant", content: "You picked teal." });
  });

  it("ends a run at an approval with an interrupt, and the next run's resume lets the call run", async () => {
    const { agent } = await agentFor(
      [{ type: "builtin", name: "get_time", requires_approval: true }],
      [callTool("toolu_a", "get_time"), say("Approved and done.")],
    );
    agent.addMessage({ id: crypto.randomUUID(), role: "user", content: "what time is it?" });
    await agent.runAgent();
    expect(agent.pendingInterrupts).toEqual([expect.objectContaining({ id: "toolu_a", reason: "tool_approval", toolCallId: "toolu_a" })]);
    // The client itself refuses a run that leaves the interrupt unanswered.
    await expect(agent.runAgent()).rejects.toThrow(/pending interrupt/);

    const { events, subscriber } = recorder();
    const { newMessages } = await agent.runAgent(
      { resume: [{ interruptId: "toolu_a", status: "resolved", payload: { approved: true } }] },
      subscriber,
    );
    expect(typesOf(events)).toContain("TOOL_CALL_RESULT");
    expect(newMessages.at(-1)).toMatchObject({ role: "assistant", content: "Approved and done." });
    expect(agent.pendingInterrupts).toEqual([]);
  });
});
