/**
 * Sub-agents through a kill -9: the process dies while a child session's model call is on its
 * way, just after the parent saved the call that starts the child (around the child's creation),
 * or as the child's answer arrives (around the hand-over to the parent). In each case there is
 * exactly one child, and the parent gets its result once and finishes with a whole history.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { historyProblems, textOf } from "./support/history";
import type { ApiClient } from "./support/api-client";
import { say, waitForFinal, waitForRequests } from "./support/scenario";
import { waitFor } from "./support/wait";
import { type Stack, startStack, uniqueName } from "./support/stack";

const STEP_TIMEOUT_MS = 30_000;
/** After the parent ended, a late second result or child would have shown well within this. */
const QUIET_AFTER_END_MS = 2_000;

describe("kill -9 during a child session's run", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  it("gives the parent the child's result once after the restart", async () => {
    const client = await stack.client(uniqueName("tenant"), "e2e-user", ["sessions:read", "sessions:write", "agents:write"]);
    const childModel = stack.mock.model(uniqueName("child"));
    const parentModel = stack.mock.model(uniqueName("parent"));
    // The child's first call is still being answered when the process dies; the call made again after the restart answers.
    await childModel.script(say("cut off", 10_000), say("the child's answer"));
    await parentModel.script(
      { reply: { content: [{ type: "tool_use", id: "toolu_helper", name: "helper", input: { input: "look it up" } }] } },
      say("the parent is done"),
    );
    const agent = await client.expect<{ id: string }>(201, "POST", "/v1/agents", {
      name: uniqueName("helper")
        .replace(/[^A-Za-z0-9_-]/g, "_")
        .slice(0, 60),
      model: childModel.key,
    });
    const parent = await client.createSession({
      input: "ask the helper",
      model: parentModel.key,
      tools: [{ type: "agent", name: "helper", description: "Looks things up.", agent: agent.id }],
    });
    await waitForRequests(childModel, 1, STEP_TIMEOUT_MS);
    await stack.platform.restart("SIGKILL");

    const final = await waitForFinal(client, parent.id, STEP_TIMEOUT_MS * 2);
    await new Promise((resolve) => setTimeout(resolve, QUIET_AFTER_END_MS));
    expect(final.status, stack.logs()).toBe("done");
    const children = await client.expect<{ data: { id: string; status: string }[] }>(
      200,
      "GET",
      `/v1/sessions?parent_session_id=${parent.id}`,
    );
    expect(children.data.map((c) => c.status)).toEqual(["done"]);
    const calls = await client.toolCalls(parent.id);
    expect(calls.map((c) => [c.id, c.status, c.output])).toEqual([["toolu_helper", "done", "the child's answer"]]);
    const messages = await client.messages(parent.id);
    const results = messages.flatMap((m) => m.content).filter((b) => b.type === "tool_result");
    expect(results).toEqual([{ type: "tool_result", tool_use_id: "toolu_helper", content: "the child's answer" }]);
    expect(textOf(messages[messages.length - 1])).toBe("the parent is done");
    expect(historyProblems(messages, calls)).toEqual([]);
    expect(await parentModel.requests()).toHaveLength(2);
    // The child's first call was cut off by the kill (its answer was never seen) and asked once more.
    expect(await childModel.requests()).toHaveLength(2);
  });

  /** A parent with one agent call, its child's answer coming after `childDelayMs`. */
  async function parentAndChild(childDelayMs: number) {
    const client = await stack.client(uniqueName("tenant"), "e2e-user", ["sessions:read", "sessions:write", "agents:write"]);
    const childModel = stack.mock.model(uniqueName("child"));
    const parentModel = stack.mock.model(uniqueName("parent"));
    // A second answer in case the kill cut the first call off and it is asked again.
    await childModel.script(say("the child's answer", childDelayMs), say("the child's answer"));
    // The parent's last answer twice too: a kill during the hand-over may cut its next call off.
    await parentModel.script(
      { reply: { content: [{ type: "tool_use", id: "toolu_helper", name: "helper", input: { input: "look it up" } }] } },
      say("the parent is done"),
      say("the parent is done"),
    );
    const agent = await client.expect<{ id: string }>(201, "POST", "/v1/agents", {
      name: uniqueName("helper")
        .replace(/[^A-Za-z0-9_-]/g, "_")
        .slice(0, 60),
      model: childModel.key,
    });
    const parent = await client.createSession({
      input: "ask the helper",
      model: parentModel.key,
      tools: [{ type: "agent", name: "helper", description: "Looks things up.", agent: agent.id }],
    });
    return { client, childModel, parentModel, parent };
  }

  async function expectOneChildOneResult(client: ApiClient, parentId: string) {
    const final = await waitForFinal(client, parentId, STEP_TIMEOUT_MS * 2);
    await new Promise((resolve) => setTimeout(resolve, QUIET_AFTER_END_MS));
    expect(final.status, stack.logs()).toBe("done");
    const children = await client.expect<{ data: { id: string; status: string }[] }>(
      200,
      "GET",
      `/v1/sessions?parent_session_id=${parentId}`,
    );
    expect(children.data.map((c) => c.status)).toEqual(["done"]);
    const calls = await client.toolCalls(parentId);
    expect(calls.map((c) => [c.id, c.status, c.output])).toEqual([["toolu_helper", "done", "the child's answer"]]);
    const messages = await client.messages(parentId);
    expect(messages.flatMap((m) => m.content).filter((b) => b.type === "tool_result")).toHaveLength(1);
    expect(historyProblems(messages, calls)).toEqual([]);
  }

  it("makes exactly one child when the process dies right after the parent saved the call that starts it", async () => {
    const { client, parentModel, parent } = await parentAndChild(200);
    await waitFor(async () => ((await client.toolCalls(parent.id)).length > 0 ? true : undefined), {
      timeoutMs: STEP_TIMEOUT_MS,
      intervalMs: 10,
      what: "the parent's agent call",
    });
    await stack.platform.restart("SIGKILL");
    await expectOneChildOneResult(client, parent.id);
    expect(await parentModel.requests()).toHaveLength(2);
  });

  it("gives the result once when the process dies as the child's answer arrives", async () => {
    const { client, childModel, parentModel, parent } = await parentAndChild(300);
    await waitForRequests(childModel, 1, STEP_TIMEOUT_MS);
    // The moment the mock sends the child's answer, whatever the machine's pace.
    await waitFor(async () => ((await childModel.requests())[0]?.answered_at !== undefined ? true : undefined), {
      timeoutMs: STEP_TIMEOUT_MS,
      intervalMs: 5,
      what: "the child's answer",
    });
    await stack.platform.restart("SIGKILL");
    await expectOneChildOneResult(client, parent.id);
    // The hand-over may already have gone on to the parent's next model call, which the kill cuts
    // off and the restart asks again: every call after the first carries the child's result once.
    const requests = await parentModel.requests();
    expect(requests.length).toBeGreaterThanOrEqual(2);
    for (const request of requests.slice(1)) expect(JSON.stringify(request.body).split("the child's answer").length - 1).toBe(1);
  });
});
