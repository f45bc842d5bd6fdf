/**
 * A platform agent calling another platform agent through an `a2a` tool, against `wrangler dev`:
 * the caller's tool reads the callee's agent card and sends it the model's message over A2A, with
 * a vault credential for the platform's own origin; the callee's answer is the call's result. When
 * the callee waits for a client tool's output, the caller's call waits too, with the callee's
 * question as its output, and the answer posted to the caller reaches the callee's call.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { ModelStep } from "../support/mock-protocol";
import { say, waitForStatus } from "./support/scenario";
import { type SharedStack, sharedStack, uniqueName } from "./support/stack";
import { tokenMinter } from "./support/tokens";
import type { ApiClient } from "./support/api-client";
import type { SessionStatus } from "../../src/session-config/types";

const until = (client: ApiClient, id: string, statuses: SessionStatus[]) =>
  waitForStatus(client, id, (session) => statuses.includes(session.status), 60_000);

const SCOPES = ["sessions:read", "sessions:write", "agents:write", "tenant:admin"] as const;

function ask(id: string, message: string): ModelStep {
  return { reply: { content: [{ type: "tool_use", id, name: "ask_helper", input: { message } }] } };
}

describe("an a2a tool between two platform agents", () => {
  let stack: SharedStack;
  let mint: Awaited<ReturnType<typeof tokenMinter>>;

  beforeAll(async () => {
    stack = await sharedStack();
    mint = await tokenMinter(stack.platform.signingKey);
  });

  /** A tenant with a callee agent (its model scripted) and a caller agent whose `ask_helper` tool is the callee over A2A. */
  async function agents(callee: { steps: ModelStep[]; tools?: unknown[] }, caller: ModelStep[]) {
    const tenant = uniqueName("a2a-tool");
    const token = await mint({ tenantId: tenant, subject: "backend", scopes: [...SCOPES] });
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const post = async (path: string, body: unknown, method = "POST") => {
      const res = await fetch(`${stack.platform.url}${path}`, { method, headers, body: JSON.stringify(body) });
      expect(res.status, await res.clone().text()).toBeLessThan(300);
      return (await res.json()) as { id: string };
    };
    // The tool's own credential: a token of the tenant, sent to the platform's origin only.
    const toolToken = await mint({ tenantId: tenant, subject: "caller-agent", scopes: ["sessions:read", "sessions:write"] });
    await post(
      "/v1/tenant/credentials/platform",
      { type: "bearer", value: toolToken, allowed_origins: [new URL(stack.platform.url).origin] },
      "PUT",
    );
    const calleeModel = stack.mock.model(uniqueName("callee"));
    await calleeModel.script(...callee.steps);
    const helper = await post("/v1/agents", { name: uniqueName("helper"), model: calleeModel.key, tools: callee.tools ?? [] });
    const callerModel = stack.mock.model(uniqueName("caller"));
    await callerModel.script(...caller);
    const tool = {
      type: "a2a",
      name: "ask_helper",
      description: "Asks the helper agent.",
      agent_card_url: `${stack.platform.url}/v1/agents/${helper.id}/a2a/.well-known/agent-card.json`,
      auth: { credential: "platform" },
    };
    const main = await post("/v1/agents", { name: uniqueName("main"), model: callerModel.key, tools: [tool] });
    return { client: await stack.client(tenant, "backend", [...SCOPES]), main };
  }

  async function start(client: ApiClient, agentId: string): Promise<string> {
    return (await client.createSession({ agent: agentId, input: "go" })).id;
  }

  it("gives the callee's answer to the caller's model", async () => {
    const { client, main } = await agents({ steps: [say("the helper says 42")] }, [
      ask("toolu_ask", "what is the answer?"),
      say("42 it is"),
    ]);
    const id = await start(client, main.id);
    expect((await until(client, id, ["done", "failed"])).status).toBe("done");
    const [call] = await client.toolCalls(id);
    expect(call).toMatchObject({ name: "ask_helper", status: "done", is_error: false, output: "the helper says 42" });
  });

  it("waits with the callee's question, and sends the answer the caller is given to the callee's waiting call", async () => {
    const clientTool = { type: "client", name: "pick_city", description: "The user picks a city.", input_schema: { type: "object" } };
    const calleeSteps: ModelStep[] = [
      { reply: { content: [{ type: "tool_use", id: "toolu_pick", name: "pick_city", input: {} }] } },
      say("sunny in Paris"),
    ];
    const { client, main } = await agents({ steps: calleeSteps, tools: [clientTool] }, [ask("toolu_weather", "weather?"), say("done")]);
    const id = await start(client, main.id);
    await until(client, id, ["waiting_tool_output"]);
    const [waiting] = await client.toolCalls(id);
    expect(waiting).toMatchObject({ name: "ask_helper", status: "waiting_tool_output" });
    // The callee's status message: a sentence, then its DataPart as a line of JSON.
    const [sentence, data] = waiting!.output!.split("\n");
    expect(sentence).toBeTruthy();
    const question = JSON.parse(data!) as { waiting_for: { tool_call_id: string; name: string; kind: string }[] };
    expect(question.waiting_for).toEqual([expect.objectContaining({ tool_call_id: "toolu_pick", name: "pick_city", kind: "tool_output" })]);

    const answer = JSON.stringify({ tool_call_id: "toolu_pick", output: "Paris" });
    await client.expect(200, "POST", `/v1/sessions/${id}/tool-calls/toolu_weather/output`, { output: answer });
    expect((await until(client, id, ["done", "failed"])).status).toBe("done");
    expect((await client.toolCalls(id))[0]).toMatchObject({ status: "done", output: "sunny in Paris" });
  });
});
