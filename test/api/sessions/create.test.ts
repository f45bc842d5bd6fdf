import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/api/app";
import { PROBLEM_TYPE_BASE } from "../../../src/api/errors";
import { tenantIndexStub } from "../../../src/objects";
import type { Session } from "../../../src/session-config/types";
import { BUILTIN_DEFAULT_LIMITS } from "../../../src/limits";
import { BASE_URL, call, callJson, readProblem } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { caller, createSession, messagesOf, OBJECT_SCHEMA, text, waitForStatus } from "./helpers";

describe("POST /v1/sessions", () => {
  it("creates an idle session with the documented defaults, 201 with Location", async () => {
    const alice = await caller(undefined, ["sessions:read", "sessions:write"], "alice");
    const res = await callJson("/v1/sessions", "POST", { metadata: { ticket: "T-1" } }, alice.headers);
    expect(res.status).toBe(201);
    const session = (await res.json()) as Session;
    expect(session.id).toMatch(/^ses_[A-Za-z0-9_-]{24,}$/);
    expect(res.headers.get("Location")).toBe(`/v1/sessions/${session.id}`);
    expect(session).toMatchObject({
      tenant_id: alice.tenantId,
      created_by: "alice",
      status: "idle",
      model: env.MODEL,
      system: null,
      tools: [],
      limits: BUILTIN_DEFAULT_LIMITS,
      context: { strategy: "auto" },
      queued_messages: 0,
      metadata: { ticket: "T-1" },
      usage: { steps: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
    });
  });

  it("starts a run at once when given input, answered by the session's model", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [text("hello there")] } });
    const created = await createSession(who, { input: "hi", model: model.key, system: "be brief" });
    expect(created.status).toBe("running");
    const done = await waitForStatus(who, created.id, ["done", "failed"]);
    expect(done).toMatchObject({ status: "done", stop_reason: "end_turn" });
    expect((await messagesOf(who, created.id)).map((m) => [m.role, m.content])).toEqual([
      ["user", [text("hi")]],
      ["assistant", [text("hello there")]],
    ]);
    const sent = (await model.requests())[0]!.body as { model: string; system?: unknown };
    expect(sent.model).toBe(model.key);
  });

  it("takes input as text blocks", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const created = await createSession(who, { input: [text("part one"), text("part two")], model: model.key });
    await waitForStatus(who, created.id, ["done"]);
    expect((await messagesOf(who, created.id))[0]!.content).toEqual([text("part one"), text("part two")]);
  });

  it("lowers the tenant's limits where the session asks", async () => {
    const session = await createSession(await caller(), { limits: { max_steps_per_run: 3, max_tool_output_chars: 100 } });
    expect(session.limits).toEqual({ ...BUILTIN_DEFAULT_LIMITS, max_steps_per_run: 3, max_tool_output_chars: 100 });
  });

  it("refuses limits above the tenant's with a 400 listing each one", async () => {
    const who = await caller();
    await tenantIndexStub(env, who.tenantId).setLimitOverrides(who.tenantId, { max_steps_per_run: 5 });
    const res = await callJson(
      "/v1/sessions",
      "POST",
      { limits: { max_steps_per_run: 6, max_tokens_per_call: 1_000_000, max_tokens_per_session: 10 } },
      who.headers,
    );
    expect(res.status).toBe(400);
    const problem = await readProblem(res);
    expect(problem.type).toBe(`${PROBLEM_TYPE_BASE}validation_failed`);
    expect(problem.errors?.map((e) => e.path).sort()).toEqual(["body.limits.max_steps_per_run", "body.limits.max_tokens_per_call"]);
  });

  it("accepts the three kinds of tool and keeps them as given", async () => {
    const tools = [
      { type: "builtin", name: "get_time", requires_approval: true },
      {
        type: "webhook",
        name: "lookup",
        description: "Look up an order",
        input_schema: OBJECT_SCHEMA,
        url: "https://hooks.example.com/lookup",
        at_most_once: true,
      },
      { type: "client", name: "ask_user", description: "Ask the user", input_schema: OBJECT_SCHEMA },
    ];
    expect((await createSession(await caller(), { tools })).tools).toEqual(tools);
  });

  it.each([
    ["an unknown built-in", [{ type: "builtin", name: "shell" }], "body.tools"],
    [
      "a repeated name",
      [
        { type: "builtin", name: "get_time" },
        { type: "client", name: "get_time", description: "d", input_schema: OBJECT_SCHEMA },
      ],
      "body.tools",
    ],
    ["a bad tool name", [{ type: "client", name: "no spaces", description: "d", input_schema: OBJECT_SCHEMA }], "body.tools.0.name"],
    [
      "an input_schema that is not an object schema",
      [{ type: "client", name: "x", description: "d", input_schema: { type: "string" } }],
      "body.tools.0.input_schema",
    ],
    ["an unknown tool type", [{ type: "shell", name: "x" }], "body.tools.0.type"],
    [
      "a non-URL webhook",
      [{ type: "webhook", name: "x", description: "d", input_schema: OBJECT_SCHEMA, url: "not a url" }],
      "body.tools.0.url",
    ],
    ["an a2a tool without a card URL", [{ type: "a2a", name: "x", description: "d" }], "body.tools.0.agent_card_url"],
    [
      "an a2a card URL that is not one",
      [{ type: "a2a", name: "x", description: "d", agent_card_url: "not a url" }],
      "body.tools.0.agent_card_url",
    ],
    [
      "an a2a tool with an input_schema (its input is fixed)",
      [{ type: "a2a", name: "x", description: "d", agent_card_url: "https://agents.example.com/card.json", input_schema: OBJECT_SCHEMA }],
      "body.tools.0",
    ],
    ["a built-in named constructor", [{ type: "builtin", name: "constructor" }], "body.tools"],
    ["a built-in named __proto__", [{ type: "builtin", name: "__proto__" }], "body.tools"],
    ["a built-in named toString", [{ type: "builtin", name: "toString" }], "body.tools"],
    [
      "a pattern with a backreference",
      [
        {
          type: "client",
          name: "x",
          description: "d",
          input_schema: { type: "object", properties: { q: { type: "string", pattern: "(a)\\1" } } },
        },
      ],
      "body.tools.0.input_schema.properties.q.pattern",
    ],
    [
      "a lookahead in $defs",
      [{ type: "client", name: "x", description: "d", input_schema: { type: "object", $defs: { d: { pattern: "(?=a)" } } } }],
      "body.tools.0.input_schema.$defs.d.pattern",
    ],
    [
      "a patternProperties key with lookbehind",
      [{ type: "client", name: "x", description: "d", input_schema: { type: "object", patternProperties: { "(?<=a)b": {} } } }],
      "body.tools.0.input_schema.patternProperties.(?<=a)b",
    ],
    [
      "patterns too large together",
      Array.from({ length: 3 }, (_, i) => ({
        type: "client",
        name: `t${i}`,
        description: "d",
        input_schema: { type: "object", properties: { q: { pattern: "^[a-z]{1,990}$" } } },
      })),
      "body.tools",
    ],
    [
      "65 tools",
      Array.from({ length: 65 }, (_, i) => ({ type: "client", name: `t${i}`, description: "d", input_schema: OBJECT_SCHEMA })),
      "body.tools",
    ],
  ])("refuses %s with a 400 on the field", async (_name, tools, path) => {
    const res = await callJson("/v1/sessions", "POST", { tools }, (await caller()).headers);
    expect(res.status).toBe(400);
    expect((await readProblem(res)).errors?.map((e) => e.path)).toContain(path);
  });

  it.each([
    ["an unknown field", { inputs: "hi" }],
    ["blank input", { input: "   " }],
    ["an empty block list", { input: [] }],
    ["a non-text block", { input: [{ type: "image", data: "x" }] }],
    ["too many metadata entries", { metadata: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, "v"])) }],
    ["a non-string metadata value", { metadata: { n: 1 } }],
    ["an unknown limit", { limits: { max_fun: 1 } }],
    ["a model id with spaces", { model: "my model" }],
    ["a context nested 3000 deep", { context: { a: nested(3000) } }],
    [
      "an input_schema nested 100 deep",
      { tools: [{ type: "client", name: "c", description: "d", input_schema: { type: "object", x: nested(100) } }] },
    ],
  ])("refuses %s with 400", async (_name, body) => {
    const res = await callJson("/v1/sessions", "POST", body, (await caller()).headers);
    expect(res.status).toBe(400);
    expect((await readProblem(res)).type).toBe(`${PROBLEM_TYPE_BASE}validation_failed`);
  });

  it.each([
    ["an upper-case name", { credential: "GitHub" }, "body.tools.0.auth.credential"],
    ["a name of 65 characters", { credential: "a".repeat(65) }, "body.tools.0.auth.credential"],
    ["a value instead of a name", { credential: "github", value: "Bearer x" }, "body.tools.0.auth"],
  ])("refuses a tool's auth with %s, on its path", async (_name, auth, path) => {
    const tools = [{ type: "webhook", name: "w", description: "d", input_schema: OBJECT_SCHEMA, url: "https://hooks.example.com/x", auth }];
    const res = await callJson("/v1/sessions", "POST", { tools }, (await caller()).headers);
    expect(res.status).toBe(400);
    expect((await readProblem(res)).errors?.map((e) => e.path)).toContain(path);
  });

  it("takes a credential's name on a webhook or an MCP server, connected or not, and shows it as given", async () => {
    const tools = [
      {
        type: "webhook",
        name: "w",
        description: "d",
        input_schema: OBJECT_SCHEMA,
        url: "https://hooks.example.com/x",
        auth: { credential: "crm" },
      },
      { type: "mcp", name: "gh", url: "https://mcp.example.com/mcp", auth: { credential: "github_2" } },
    ];
    const res = await callJson("/v1/sessions", "POST", { tools }, (await caller()).headers);
    expect(res.status, await res.clone().text()).toBe(201);
    const session = (await res.json()) as Session;
    expect(session.tools.map((tool) => ("auth" in tool ? tool.auth : null))).toEqual([{ credential: "crm" }, { credential: "github_2" }]);
  });

  it("accepts a catastrophic-looking pattern: it runs in linear time", async () => {
    const tools = [
      {
        type: "client",
        name: "x",
        description: "d",
        input_schema: { type: "object", properties: { q: { type: "string", pattern: "^(a+)+$" } } },
      },
    ];
    expect((await callJson("/v1/sessions", "POST", { tools }, (await caller()).headers)).status).toBe(201);
  });

  it("answers malformed JSON with a 400 problem", async () => {
    const res = await call("/v1/sessions", {
      method: "POST",
      headers: { ...(await caller()).headers, "Content-Type": "application/json" },
      body: '{"input": "hi"',
    });
    expect(res.status).toBe(400);
    expect((await readProblem(res)).type).toBe(`${PROBLEM_TYPE_BASE}bad_request`);
  });

  it("answers a body that is not JSON with 415", async () => {
    const res = await call("/v1/sessions", {
      method: "POST",
      headers: { ...(await caller()).headers, "Content-Type": "text/plain" },
      body: "hi",
    });
    expect(res.status).toBe(415);
  });

  it("refuses a new run once the tenant's daily token budget is spent", async () => {
    const who = await caller();
    await tenantIndexStub(env, who.tenantId).setLimitOverrides(who.tenantId, { max_tokens_per_day: 10 });
    const model = mockModel(uniqueKey("model"));
    const first = await createSession(who, { input: "spend", model: model.key });
    await waitForStatus(who, first.id, ["done"]); // the mock bills 15 tokens
    const res = await callJson("/v1/sessions", "POST", { input: "more", model: model.key }, who.headers);
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(24 * 60 * 60);
    expect((await readProblem(res)).detail).toMatch(/daily token budget/);
    // A session without input starts nothing, so it is still allowed.
    expect((await createSession(who, {})).status).toBe("idle");
  });
});

describe("webhook URLs when private URLs are not allowed", () => {
  /** The real app with the one setting changed; the test environment itself allows private URLs. */
  async function createWithoutPrivateUrls(url: string): Promise<Response> {
    const app = createApp();
    const ctx = createExecutionContext();
    const who = await caller();
    const body = { tools: [{ type: "webhook", name: "hook", description: "d", input_schema: OBJECT_SCHEMA, url }] };
    const request = new Request(`${BASE_URL}/v1/sessions`, {
      method: "POST",
      headers: { ...who.headers, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const res = await app.fetch(request, { ...env, ALLOW_PRIVATE_URLS: "false" }, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  }

  it.each(["https://127.0.0.1/hook", "https://169.254.169.254/latest/meta-data/", "http://hooks.example.com/plain-http"])(
    "refuses %s with 400",
    async (url) => {
      const res = await createWithoutPrivateUrls(url);
      expect(res.status).toBe(400);
      expect((await readProblem(res)).errors).toEqual([{ path: "body.tools.0.url", message: expect.any(String) }]);
    },
  );

  it("accepts an https URL on the public internet", async () => {
    expect((await createWithoutPrivateUrls("https://hooks.example.com/lookup")).status).toBe(201);
  });
});

/** `[[[...]]]`, `depth` arrays deep. */
function nested(depth: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}
