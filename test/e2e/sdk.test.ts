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
  credentials,
  expectData,
  iteratePages,
  type Message,
  type EventFrame,
  PlatformError,
  type PlatformClient,
  runSession,
  type Session,
  type ToolCall,
  type ToolCallEventData,
  UnhandledToolError,
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
    const token = await (
      await tokenMinter(stack.platform.signingKey)
    )({
      tenantId: tenant,
      subject: "sdk-backend",
      scopes: ["sessions:read", "sessions:write", "tenant:admin", "end_users:issue"],
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
          tools: [
            {
              type: "client",
              name: "ask_customer",
              description: "Asks the customer.",
              input_schema: { type: "object" },
              requires_approval: true,
            },
          ],
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
    const v2 = await expectData(
      admin.PATCH("/v1/agents/{agent_id}", { params: { path: { agent_id: agent.id } }, body: { system: "version two" } }),
    );
    expect(v2.version).toBe(2);
    await setAlias(admin, agent.id, "production", 2);
    expect((await setAlias(admin, agent.id, "production", 1)).aliases).toEqual({ production: 1 });

    await model.script(
      {
        reply: {
          content: [{ type: "tool_use", id: "toolu_put", name: "memory_put", input: { key: "prefs", value: { language: "French" } } }],
        },
      },
      say("Noted."),
      say("Forked answer."),
    );
    const session = await expectData(
      admin.POST("/v1/sessions", {
        body: { agent: agentRef(agent.id, "production"), input: "I prefer French.", metadata: { user_id: "u_sdk" } },
      }),
    );
    const finished = await waitForFinalStatus(admin, session.id, { timeoutMs: RUN_TIMEOUT_MS, intervalMs: 200 });
    expect(finished).toMatchObject({ status: "done", agent: { id: agent.id, version: 1 }, memory: { namespaces: [["users", "u_sdk"]] } });
    expect(await getMemoryItem(admin, ["users", "u_sdk"], "prefs")).toMatchObject({
      value: { language: "French" },
      created_by: `session:${session.id}`,
    });
    expect(await getMemoryItem(admin, ["users", "u_sdk"], "missing")).toBeNull();

    const fork = await expectData(
      admin.POST("/v1/sessions/{id}/fork", { params: { path: { id: session.id } }, body: { at_seq: 1, input: "Say it again." } }),
    );
    expect(fork.forked_from).toEqual({ session_id: session.id, seq: 1 });
    expect(await waitForFinalStatus(admin, fork.id, { timeoutMs: RUN_TIMEOUT_MS, intervalMs: 200 })).toMatchObject({ status: "done" });

    // The export is a create body as it stands, in another tenant too.
    const exported = await exportAgent(admin, agent.id, 1);
    expect(exported.system).toBe("version one");
    const elsewhere = createPlatformClient({
      baseUrl: stack.platform.url,
      credential: await (
        await tokenMinter(stack.platform.signingKey)
      )({ tenantId: uniqueName("sdk-other"), subject: "sdk-backend", scopes: ["tenant:admin"] }),
    });
    const imported = await importAgent(elsewhere, exported);
    expect(imported).toMatchObject({ version: 1, definition: exported });
    expect(imported.id).not.toBe(agent.id);
  });

  describe("runSession", () => {
    const ORDER_TOOL = {
      type: "client",
      name: "lookup_order",
      description: "Finds an order.",
      input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    } as const;

    /** A client for this tenant whose fetch `wrap` can watch, delay or cut. */
    async function clientWith(wrap: (request: Request, next: () => Promise<Response>) => Promise<Response>): Promise<PlatformClient> {
      const token = await (
        await tokenMinter(stack.platform.signingKey)
      )({ tenantId: tenant, subject: "sdk-backend", scopes: ["sessions:read", "sessions:write"] });
      return createPlatformClient({
        baseUrl: stack.platform.url,
        credential: token,
        fetch: (input, init) => {
          const request = new Request(input, init);
          return wrap(request, () => fetch(request));
        },
      });
    }

    /** The stored events' ids are every id from the first, once each and in order. */
    function expectEveryEventOnce(frames: EventFrame[]): void {
      const ids = frames.flatMap((f) => ("id" in f && typeof f.id === "number" ? [f.id] : []));
      expect(ids[0]).toBe(1);
      expect(ids).toEqual(ids.map((_, n) => n + 1));
      expect(frames.some((f) => f.type === "snapshot")).toBe(false);
    }

    it("answers a client tool with its typed handler and returns the answer, output and usage", async () => {
      const model = stack.mock.model(uniqueName("model"));
      await model.script(callTools([["toolu_order", "lookup_order"]]), say("Order 0 has shipped."));
      const inputs: number[] = [];
      const frames: EventFrame[] = [];
      const run = await runSession(
        admin,
        { input: "Where is order 0?", model: model.key, metadata: { ticket: "T-1" }, tools: [ORDER_TOOL] },
        {
          tools: {
            lookup_order: ({ n }) => {
              inputs.push(n); // typed from the schema: a number
              return { order: n, state: "shipped" };
            },
          },
          onEvent: (frame) => void frames.push(frame),
        },
      );
      expect(inputs).toEqual([0]);
      expect(run).toMatchObject({
        answer: "Order 0 has shipped.",
        output: null,
        session: { status: "done", stop_reason: "end_turn", metadata: { ticket: "T-1" } },
      });
      expect(run.usage.steps).toBe(2);
      expectEveryEventOnce(frames);
      const calls = await allPages((cursor) =>
        admin.GET("/v1/sessions/{id}/tool-calls", { params: { path: { id: run.session.id }, query: { cursor } } }),
      );
      expect(calls.map((c) => [c.name, c.status, c.output])).toEqual([["lookup_order", "done", '{"order":0,"state":"shipped"}']]);
    });

    it("asks the approval callback, approving one call and denying another with its reason", async () => {
      const model = stack.mock.model(uniqueName("model"));
      await model.script(
        callTools([
          ["toolu_a", "lookup_order"],
          ["toolu_b", "get_time"],
        ]),
        say("One looked up, one refused."),
      );
      const asked: string[] = [];
      const run = await runSession(
        admin,
        {
          input: "Look it up.",
          model: model.key,
          tools: [
            { ...ORDER_TOOL, requires_approval: true },
            { type: "builtin", name: "get_time", requires_approval: true },
          ],
        },
        {
          tools: { lookup_order: () => "found" },
          approve: (call: ToolCallEventData) => {
            asked.push(call.name);
            return call.name === "lookup_order" ? true : { deny: "not during the test" };
          },
        },
      );
      expect(asked.sort()).toEqual(["get_time", "lookup_order"]);
      expect(run.session.status).toBe("done");
      const calls = await allPages((cursor) =>
        admin.GET("/v1/sessions/{id}/tool-calls", { params: { path: { id: run.session.id }, query: { cursor } } }),
      );
      expect(Object.fromEntries(calls.map((c) => [c.name, [c.status, c.output]]))).toEqual({
        lookup_order: ["done", "found"],
        get_time: ["error", expect.stringContaining("not during the test")],
      });
    });

    it("resumes a dropped stream from its last event, so each event is seen once", async () => {
      const model = stack.mock.model(uniqueName("model"));
      await model.script(callTools([["toolu_order", "lookup_order"]]), say("Shipped."));
      const opened: (string | null)[] = [];
      const client = await clientWith(async (request, next) => {
        const response = await next();
        if (!request.url.endsWith("/events")) return response;
        opened.push(request.headers.get("Last-Event-ID"));
        if (opened.length > 1) return response;
        // The first connection breaks once it has carried the tool call's event: at the read after
        // the one that brought it (an error drops what is queued and not yet read).
        const reader = response.body!.getReader();
        let text = "";
        const cut = new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (text.includes("event: tool_call")) {
              await reader.cancel();
              return controller.error(new TypeError("network connection lost"));
            }
            const { done, value } = await reader.read();
            if (done) return controller.close();
            controller.enqueue(value);
            text += new TextDecoder().decode(value);
          },
        });
        return new Response(cut, { status: response.status, headers: response.headers });
      });
      const frames: EventFrame[] = [];
      const run = await runSession(
        client,
        { input: "Where is order 0?", model: model.key, tools: [ORDER_TOOL] },
        { tools: { lookup_order: () => "shipped" }, onEvent: (frame) => void frames.push(frame), reconnectDelayMs: 50 },
      );
      expect(run).toMatchObject({ answer: "Shipped.", session: { status: "done" } });
      expect(opened.length).toBeGreaterThanOrEqual(2);
      // From before the first event, then after the last one the broken connection carried.
      expect(opened[0]).toBe("0");
      const resumedAfter = Number(opened[1]);
      expect(resumedAfter).toBeGreaterThan(0);
      const firstCall = frames.find((f) => f.type === "tool_call");
      expect(resumedAfter).toBeGreaterThanOrEqual(firstCall && "id" in firstCall ? firstCall.id : Infinity);
      expect(frames.at(-1)?.type).toBe("end");
      expectEveryEventOnce(frames);
    });

    it("posts the input only once the stream is open, so the first model call's text arrives too", async () => {
      const model = stack.mock.model(uniqueName("model"));
      const first = [
        { type: "text", text: "Looking up order 0." },
        { type: "tool_use", id: "toolu_order", name: "lookup_order", input: { n: 0 } },
      ];
      await model.script({ reply: { content: first } }, say("Shipped."));
      const seen: string[] = [];
      const client = await clientWith(async (request, next) => {
        if (request.method === "POST" && request.url.endsWith("/v1/sessions")) {
          expect(((await request.clone().json()) as { input?: unknown }).input).toBeUndefined();
        }
        const response = await next();
        seen.push(`${request.method} ${new URL(request.url).pathname.replace(/ses_[\w-]+/, "{id}")}`);
        return response;
      });
      const frames: EventFrame[] = [];
      const run = await runSession(
        client,
        { input: "Where is order 0?", model: model.key, tools: [ORDER_TOOL] },
        { tools: { lookup_order: () => "shipped" }, onEvent: (frame) => void frames.push(frame) },
      );
      expect(run).toMatchObject({ answer: "Shipped.", session: { status: "done", answer: "Shipped." } });
      expect(seen.slice(0, 3)).toEqual(["POST /v1/sessions", "GET /v1/sessions/{id}/events", "POST /v1/sessions/{id}/messages"]);
      const streamed = frames.flatMap((frame) => (frame.type === "delta" ? [frame.data.text] : [])).join("");
      expect(streamed).toContain("Looking up order 0.");
      expectEveryEventOnce(frames);
    });

    it("deletes the idle session it created when the platform refuses the input or its stream", async () => {
      const created: string[] = [];
      let refuseStream = false;
      const client = await clientWith(async (request, next) => {
        if (refuseStream && request.url.includes("/events")) return Response.json({ code: "forbidden" }, { status: 403 });
        const response = await next();
        if (request.method === "POST" && request.url.endsWith("/v1/sessions") && response.ok) {
          created.push(((await response.clone().json()) as { id: string }).id);
        }
        return response;
      });
      const error = await runSession(client, { input: "" }).catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 400, code: "validation_failed" });
      // Its events stream refused before the input went: the same.
      refuseStream = true;
      await expect(runSession(client, { input: "Hello" })).rejects.toMatchObject({ status: 403 });
      expect(created).toHaveLength(2);
      for (const id of created) {
        const { response } = await admin.GET("/v1/sessions/{id}", { params: { path: { id } } });
        expect(response.status).toBe(404);
      }
    });

    it("returns the session's answer, empty when the run failed, not the text the model wrote before it failed", async () => {
      const model = stack.mock.model(uniqueName("model"));
      await model.script(say("not json"), say("still not json"), say("never json"));
      const run = await runSession(admin, {
        input: "Give me a total.",
        model: model.key,
        output_schema: { type: "object", properties: { total: { type: "number" } }, required: ["total"] },
      });
      expect(run.session).toMatchObject({ status: "failed", stop_reason: "invalid_output", answer: null });
      expect(run.answer).toBe("");
    });

    it("throws an UnhandledToolError when a client tool has no handler, and leaves the session waiting", async () => {
      const model = stack.mock.model(uniqueName("model"));
      await model.script(callTools([["toolu_order", "lookup_order"]]), say("unused"));
      const error = await runSession(admin, { input: "Where?", model: model.key, tools: [ORDER_TOOL] }, { tools: {} as never }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UnhandledToolError);
      expect(error).toMatchObject({ call: { name: "lookup_order" } });
      const sessionId = (error as UnhandledToolError).sessionId;
      expect((await expectData(admin.GET("/v1/sessions/{id}", { params: { path: { id: sessionId } } }))).status).toBe(
        "waiting_tool_output",
      );
      await expectData(admin.POST("/v1/sessions/{id}/cancel", { params: { path: { id: sessionId } } }));
    });
  });

  it("authenticates with an API key as well as a token", async () => {
    const key = await expectData(admin.POST("/v1/api-keys", { body: { name: "sdk test", scopes: ["sessions:read"] } }));
    const backend = createPlatformClient({ baseUrl: stack.platform.url, credential: key.key });
    const tenantView = await expectData(backend.GET("/v1/tenant"));
    expect(tenantView.tenant_id).toBe(tenant);
  });

  it("types runSession's handlers from the tools' schemas", () => {
    // Compiled, never run: `npm run typecheck` fails if a handler's input stops being typed.
    const typed = (client: PlatformClient) => [
      runSession(
        client,
        {
          input: "x",
          tools: [
            {
              type: "client",
              name: "a",
              description: "d",
              input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
            },
          ],
        },
        {
          tools: { a: ({ n }) => n.toFixed(0) },
        },
      ),
      runSession(
        client,
        { input: "x", tools: [{ type: "client", name: "a", description: "d", input_schema: { type: "object" } }] },
        // @ts-expect-error: a handler for a tool the session does not have, and none for the one it has
        { tools: { b: () => "" } },
      ),
      // An agent's tools are not known here: any names, inputs unknown.
      runSession(client, { agent: "agt_x", input: "x" }, { tools: { anything: (input: unknown) => String(input) } }),
    ];
    expect(typeof typed).toBe("function");
  });

  it("puts, reads, lists and deletes the tenant's and an end user's credentials, and never gets a secret back", async () => {
    const body = { type: "bearer" as const, value: "sdk-secret-token", allowed_origins: ["https://api.github.com"] };
    const put = await credentials.put(admin, "tenant", "github", body);
    expect(put).toMatchObject({ name: "github", type: "bearer", header: "authorization", status: "ok" });
    await credentials.put(admin, { subject: "user_42" }, "github", body);
    expect(await credentials.get(admin, { subject: "user_42" }, "github")).toMatchObject({ allowed_origins: ["https://api.github.com"] });
    const listed = await credentials.list(admin, "tenant");
    expect(listed.map((c) => c.name)).toEqual(["github"]);
    expect(JSON.stringify([put, listed])).not.toContain("sdk-secret-token");
    await credentials.remove(admin, { subject: "user_42" }, "github");
    expect(await credentials.list(admin, { subject: "user_42" })).toEqual([]);
    const refused = await credentials
      .put(admin, "tenant", "gitlab", { ...body, allowed_origins: ["https://*.gitlab.com"] })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PlatformError);
    expect((refused as PlatformError).problem?.errors?.map((e) => e.path)).toEqual(["body.allowed_origins.0"]);
  });

  it("throws a PlatformError with the problem's code and the request id", async () => {
    const error = await expectData(admin.GET("/v1/sessions/{id}", { params: { path: { id: "ses_missing" } } })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ status: 404, code: "not_found", requestId: expect.any(String) });
  });
});
