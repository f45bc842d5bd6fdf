/**
 * Agent2Agent end to end against `wrangler dev`, with `@a2a-js/sdk`'s client unchanged: the card
 * read by `ClientFactory`, a message sent and a context continued, a stream cut mid-run and
 * resubscribed without losing an update, an approval through `input-required`, a cancel, and
 * another caller's task not found.
 */
import { Role, TaskState, type Message, type Part, type StreamResponse, type Task } from "@a2a-js/sdk";
import { type Client, ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import { beforeAll, describe, expect, it } from "vitest";
import type { ModelStep } from "../support/mock-protocol";
import { say, webhookTool } from "./support/scenario";
import { type SharedStack, sharedStack, uniqueName } from "./support/stack";
import { tokenMinter } from "./support/tokens";

const SCOPES = ["sessions:read", "sessions:write", "agents:write"] as const;

function callTool(id: string, name: string): ModelStep {
  return { reply: { content: [{ type: "tool_use", id, name, input: {} }] } };
}

function text(value: string): Part {
  return { content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "" };
}

function data(value: unknown): Part {
  return { content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "" };
}

function userMessage(parts: Part[], ids: { contextId?: string; taskId?: string } = {}): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: ids.contextId ?? "",
    taskId: ids.taskId ?? "",
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function artifactText(task: Task): string {
  return task.artifacts
    .flatMap((artifact) => artifact.parts.flatMap((part) => (part.content?.$case === "text" ? [part.content.value] : [])))
    .join("");
}

function stateOf(update: StreamResponse): TaskState | null {
  const payload = update.payload;
  if (payload?.$case === "task") return payload.value.status?.state ?? null;
  if (payload?.$case === "statusUpdate") return payload.value.status?.state ?? null;
  return null;
}

describe("A2A", () => {
  let stack: SharedStack;
  let mint: Awaited<ReturnType<typeof tokenMinter>>;

  beforeAll(async () => {
    stack = await sharedStack();
    mint = await tokenMinter(stack.platform.signingKey);
  });

  async function clientFor(tenant: string, agentId: string, subject: string): Promise<Client> {
    const token = await mint({ tenantId: tenant, subject, scopes: [...SCOPES] });
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("authorization", `Bearer ${token}`);
      return fetch(input, { ...init, headers });
    };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      }),
    );
    return factory.createFromUrl(`${stack.platform.url}/v1/agents/${agentId}/a2a/.well-known/agent-card.json`, "");
  }

  async function world(tools: unknown[], steps: ModelStep[]) {
    const tenant = uniqueName("tenant");
    const token = await mint({ tenantId: tenant, subject: "a2a-user", scopes: [...SCOPES] });
    const model = stack.mock.model(uniqueName("model"));
    await model.script(...steps);
    const created = await fetch(`${stack.platform.url}/v1/agents`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: uniqueName("helper"), description: "Helps.", model: model.key, tools }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const agent = (await created.json()) as { id: string; name: string };
    return { tenant, token, agent, client: await clientFor(tenant, agent.id, "a2a-user") };
  }

  it("reads the card, answers a message as a completed task, and continues the context; another caller finds none of it", async () => {
    const { tenant, token, agent, client } = await world([], [say("Hello from the agent."), say("Second answer.")]);
    const card = await client.getAgentCard();
    expect(card.name).toBe(agent.name);
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.supportedInterfaces[0]?.url).toBe(`${stack.platform.url}/v1/agents/${agent.id}/a2a`);

    const first = (await client.sendMessage({
      tenant: "",
      message: userMessage([text("hi")]),
      configuration: undefined,
      metadata: undefined,
    })) as Task;
    expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(first)).toBe("Hello from the agent.");
    expect(first.contextId).not.toBe("");

    const second = (await client.sendMessage({
      tenant: "",
      message: userMessage([text("again")], { contextId: first.contextId }),
      configuration: undefined,
      metadata: undefined,
    })) as Task;
    expect(second.contextId).toBe(first.contextId);
    expect(second.id).not.toBe(first.id);
    expect(artifactText(second)).toBe("Second answer.");
    expect((await client.getTask({ tenant: "", id: first.id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    // The context is the chat of the same id: the chat's history route shows both turns.
    const history = await fetch(`${stack.platform.url}/v1/agents/${agent.id}/chat/${encodeURIComponent(first.contextId)}/messages`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(history.status).toBe(200);
    expect(JSON.stringify(await history.json())).toContain("Second answer.");

    const stranger = await clientFor(tenant, agent.id, "someone-else");
    await expect(stranger.getTask({ tenant: "", id: first.id })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it("streams a run, and a stream cut mid-run resubscribes while it still runs and gets the rest", async () => {
    // The run's webhook call is held until the test releases it, so the task is still running when it resubscribes.
    const hook = stack.mock.hook(uniqueName("held"));
    await hook.script({ hold: true, then: { status: 200, body: { output: "42" } } });
    const { client } = await world([webhookTool("lookup", hook.url, false)], [callTool("toolu_s", "lookup"), say("The answer is 42.")]);
    const abort = new AbortController();
    let taskId = "";
    for await (const update of client.sendMessageStream(
      { tenant: "", message: userMessage([text("look it up")]), configuration: undefined, metadata: undefined },
      { signal: abort.signal },
    )) {
      if (update.payload?.$case === "task") {
        taskId = update.payload.value.id;
        break;
      }
    }
    abort.abort();
    expect(taskId).not.toBe("");
    await hook.waitForRequests(1);

    const updates: StreamResponse[] = [];
    for await (const update of client.resubscribeTask({ tenant: "", id: taskId })) {
      updates.push(update);
      // The first update is the task as it stands: still working, its webhook call held.
      if (updates.length === 1) {
        expect(update.payload?.$case).toBe("task");
        expect(stateOf(update)).toBe(TaskState.TASK_STATE_WORKING);
        expect(await hook.release()).toBe(1);
      }
    }
    expect(updates.map(stateOf).filter((state) => state !== null)).toEqual([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]);
    const artifacts = updates.flatMap((update) => (update.payload?.$case === "artifactUpdate" ? [update.payload.value.artifact] : []));
    expect(artifacts.map((artifact) => artifact?.parts[0]?.content)).toEqual([{ $case: "text", value: "The answer is 42." }]);
  });

  it("waits for approval as input-required, and a message answering the call lets the run finish", async () => {
    const { client } = await world(
      [{ type: "builtin", name: "get_time", requires_approval: true }],
      [callTool("toolu_a", "get_time"), say("It is noon.")],
    );
    const waiting = (await client.sendMessage({
      tenant: "",
      message: userMessage([text("time?")]),
      configuration: undefined,
      metadata: undefined,
    })) as Task;
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const asked = waiting.status?.message?.parts.find((part) => part.content?.$case === "data")?.content?.value as {
      waiting_for: unknown[];
    };
    expect(asked.waiting_for).toEqual([{ tool_call_id: "toolu_a", name: "get_time", input: {}, kind: "approval" }]);

    const ids = { contextId: waiting.contextId, taskId: waiting.id };
    await expect(
      client.sendMessage({
        tenant: "",
        message: userMessage([data({ tool_call_id: "toolu_nope", approved: true })], ids),
        configuration: undefined,
        metadata: undefined,
      }),
    ).rejects.toThrow(/does not wait/);
    const done = (await client.sendMessage({
      tenant: "",
      message: userMessage([data({ tool_call_id: "toolu_a", approved: true })], ids),
      configuration: undefined,
      metadata: undefined,
    })) as Task;
    expect(done.id).toBe(waiting.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(done)).toBe("It is noon.");
  });

  it("cancels a running task", async () => {
    const { client } = await world([], [say("Too late.", 30_000)]);
    const started = (await client.sendMessage({
      tenant: "",
      message: userMessage([text("take your time")]),
      configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true },
      metadata: undefined,
    })) as Task;
    expect(started.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const cancelled = await client.cancelTask({ tenant: "", id: started.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await client.getTask({ tenant: "", id: started.id })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });
});
