/**
 * The generated SDK against a real platform: the happy path a tenant's backend takes, written
 * only with the SDK, so a spec change that breaks clients breaks this test (and its type check).
 */
import {
  agentRef,
  allPages,
  exportAgent,
  getMemoryItem,
  importAgent,
  setAlias,
  createPlatformClient,
  expectData,
  iteratePages,
  type Message,
  PlatformError,
  type PlatformClient,
  type Session,
  type ToolCall,
  waitForFinalStatus,
  waitForStatus,
  type UsageReport,
} from "@agent-platform/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTools, say } from "./support/scenario";
import { type SharedStack, sharedStack, uniqueName } from "./support/stack";
import { tokenMinter } from "./support/tokens";

const RUN_TIMEOUT_MS = 60_000;

describe("the generated SDK", () => {
  let stack: SharedStack;
  let admin: PlatformClient;
  let tenant: string;

  beforeAll(async () => {
    stack = await sharedStack();
    tenant = uniqueName("sdk");
    const token = await (await tokenMinter(stack.platform.signingKey))({
      tenantId: tenant,
      subject: "sdk-backend",
      scopes: ["sessions:read", "sessions:write", "tenant:admin"],
    });
    admin = createPlatformClient({ baseUrl: stack.platform.url, credential: token });
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  it("creates a session with tools, waits for it to finish, and pages through its messages and tool calls", async () => {
    const model = stack.mock.model(uniqueName("model"));
    const hook = stack.mock.hook(uniqueName("hook"));
    await hook.script({ status: 200, body: { output: "order 7: shipped" } });
    await model.script(
      { reply: { content: [{ type: "tool_use", id: "toolu_time", name: "get_time", input: {} }] } },
      callTools([["toolu_order", "lookup_order"]]),
      say("Order 7 has shipped."),
    );

    const created = await admin.POST("/v1/sessions", {
      params: { header: { "idempotency-key": crypto.randomUUID() } },
      body: {
        input: "Where is order 7?",
        model: model.key,
        tools: [
          { type: "builtin", name: "get_time" },
          {
            type: "webhook",
            name: "lookup_order",
            description: "Finds an order.",
            input_schema: { type: "object", properties: { n: { type: "integer" } } },
            url: hook.url,
          },
        ],
      },
    });
    const session: Session = await expectData(created);
    expect(created.response.status).toBe(201);
    expect(created.response.headers.get("Location")).toBe(`/v1/sessions/${session.id}`);
    expect(created.response.headers.get("X-Request-Id")).toBeTruthy();

    const finished = await waitForFinalStatus(admin, session.id, { timeoutMs: RUN_TIMEOUT_MS, intervalMs: 200 });
    expect(finished).toMatchObject({ status: "done", stop_reason: "end_turn" });
    expect(finished.usage.steps).toBe(3);

    // One item per page, so the cursors are followed, not just the first page read.
    const messages: Message[] = [];
    for await (const message of iteratePages((cursor) =>
      admin.GET("/v1/sessions/{id}/messages", { params: { path: { id: session.id }, query: { cursor, limit: 1 } } }),
    )) {
      messages.push(message);
    }
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(messages.at(-1)?.content).toEqual([{ type: "text", text: "Order 7 has shipped." }]);

    const calls: ToolCall[] = await allPages((cursor) =>
      admin.GET("/v1/sessions/{id}/tool-calls", { params: { path: { id: session.id }, query: { cursor, limit: 1 } } }),
    );
    expect(calls.map((c) => [c.id, c.name, c.status])).toEqual([
      ["toolu_time", "get_time", "done"],
      ["toolu_order", "lookup_order", "done"],
    ]);
    expect(calls[1]?.output).toBe("order 7: shipped");

    // The tenant's usage by model says the same as the session, once its index heard of the end.
    let usage: UsageReport | undefined;
    for (let tries = 0; tries < 50 && usage?.totals.steps !== 3; tries++) {
      usage = await expectData(await admin.GET("/v1/tenant/usage", { params: { query: { group_by: "model" } } }));
      if (usage.totals.steps !== 3) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(usage?.data).toEqual([expect.objectContaining({ model: `anthropic:${model.key}`, runs: 1, steps: 3, cost_usd: null })]);
  });

  it("waits through an approval and a client tool that the caller answers", async () => {
    const model = stack.mock.model(uniqueName("model"));
    await model.script(callTools([["toolu_ask", "ask_customer"]]), say("The customer said yes."));
    const session = await expectData(
      admin.POST("/v1/sessions", {
        body: {
          input: "Ask the customer.",
          model: model.key,
          tools: [{ type: "client", name: "ask_customer", description: "Asks the customer.", input_schema: { type: "object" }, requires_approval: true }],
        },
      }),
    );
    const path = { id: session.id, call_id: "toolu_ask" };
    await waitForStatus(admin, session.id, ["waiting_approval"], { timeoutMs: RUN_TIMEOUT_MS, intervalMs: 200 });
    await expectData(admin.POST("/v1/sessions/{id}/tool-calls/{call_id}/approve", { params: { path } }));
    await waitForStatus(admin, session.id, ["waiting_tool_output"], { timeoutMs: RUN_TIMEOUT_MS, intervalMs: 200 });
    await expectData(admin.POST("/v1/sessions/{id}/tool-calls/{call_id}/output", { params: { path }, body: { output: "yes" } }));
    expect(await waitForFinalStatus(admin, session.id, { timeoutMs: RUN_TIMEOUT_MS, intervalMs: 200 })).toMatchObject({ status: "done" });
  });

  it("runs an agent by alias, rolls it back, moves it to another tenant, forks a session, and remembers through memory", async () => {
    const model = stack.mock.model(uniqueName("model"));
    const agent = await expectData(
      admin.POST("/v1/agents", {
        body: {
          name: uniqueName("concierge"),
          model: model.key,
          system: "version one",
          memory: { namespaces: [["users", "{metadata.user_id}"]], write: [["users", "{metadata.user_id}"]] },
        },
      }),
    );
    const v2 = await expectData(admin.PATCH("/v1/agents/{agent_id}", { params: { path: { agent_id: agent.id } }, body: { system: "version two" } }));
    expect(v2.version).toBe(2);
    await setAlias(admin, agent.id, "production", 2);
    expect((await setAlias(admin, agent.id, "production", 1)).aliases).toEqual({ production: 1 });

    await model.script(
      { reply: { content: [{ type: "tool_use", id: "toolu_put", name: "memory_put", input: { key: "prefs", value: { language: "French" } } }] } },
      say("Noted."),
      say("Forked answer."),
    );
    const session = await expectData(
      admin.POST("/v1/sessions", { body: { agent: agentRef(agent.id, "production"), input: "I prefer French.", metadata: { user_id: "u_sdk" } } }),
    );
    const finished = await waitForFinalStatus(admin, session.id, { timeoutMs: RUN_TIMEOUT_MS, intervalMs: 200 });
    expect(finished).toMatchObject({ status: "done", agent: { id: agent.id, version: 1 }, memory: { namespaces: [["users", "u_sdk"]] } });
    expect(await getMemoryItem(admin, ["users", "u_sdk"], "prefs")).toMatchObject({ value: { language: "French" }, created_by: `session:${session.id}` });
    expect(await getMemoryItem(admin, ["users", "u_sdk"], "missing")).toBeNull();

    const fork = await expectData(admin.POST("/v1/sessions/{id}/fork", { params: { path: { id: session.id } }, body: { at_seq: 1, input: "Say it again." } }));
    expect(fork.forked_from).toEqual({ session_id: session.id, seq: 1 });
    expect(await waitForFinalStatus(admin, fork.id, { timeoutMs: RUN_TIMEOUT_MS, intervalMs: 200 })).toMatchObject({ status: "done" });

    // The export is a create body as it stands, in another tenant too.
    const exported = await exportAgent(admin, agent.id, 1);
    expect(exported.system).toBe("version one");
    const elsewhere = createPlatformClient({
      baseUrl: stack.platform.url,
      credential: await (await tokenMinter(stack.platform.signingKey))({ tenantId: uniqueName("sdk-other"), subject: "sdk-backend", scopes: ["tenant:admin"] }),
    });
    const imported = await importAgent(elsewhere, exported);
    expect(imported).toMatchObject({ version: 1, definition: exported });
    expect(imported.id).not.toBe(agent.id);
  });

  it("authenticates with an API key as well as a token", async () => {
    const key = await expectData(admin.POST("/v1/api-keys", { body: { name: "sdk test", scopes: ["sessions:read"] } }));
    const backend = createPlatformClient({ baseUrl: stack.platform.url, credential: key.key });
    const tenantView = await expectData(backend.GET("/v1/tenant"));
    expect(tenantView.tenant_id).toBe(tenant);
  });

  it("throws a PlatformError with the problem's code and the request id", async () => {
    const error = await expectData(admin.GET("/v1/sessions/{id}", { params: { path: { id: "ses_missing" } } })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ status: 404, code: "not_found", requestId: expect.any(String) });
  });
});
