/**
 * Traces through the public API: a tenant sets a collector (here the mock server on loopback),
 * and each run's spans reach it as OTLP/HTTP JSON, decoded strictly against the official OTLP
 * definitions. Both providers; a caller's `traceparent`; content only when asked for; a
 * collector that is down for minutes (the retry schedule scaled by NOTIFY_RETRY_SCALE) loses
 * nothing and receives each span once.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sessionStub } from "../../src/objects";
import { SessionStore } from "../../src/sessions/object/store/store";
import { callJson } from "../support/api";
import { type MockHook, mockHook, mockHookUrl, mockModel, type RecordedRequest, uniqueKey } from "../support/mock-client";
import { decodeTraceExport, type DecodedSpan } from "../support/otlp-decode";
import { caller, type Caller, createSession, text, toolCallsOf, toolUse, waitForStatus } from "../api/sessions/helpers";
import { bearer } from "../support/tokens";
import { createPlatformClient } from "../../sdk/src/client";
import { expectData } from "../../sdk/src/errors";
import type { TracesSettings } from "../../sdk/src/types";
import { BASE_URL, call } from "../support/api";

const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const TRACEPARENT = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;
const COLLECTOR_TOKEN = "Bearer collector-token-5f2a9c";
const USAGE = { input_tokens: 11, output_tokens: 5 };
/** NOTIFY_RETRY_SCALE in vitest.config.ts: the retry schedule runs 1000 times faster. */
const RETRY_SCALE = 0.001;

const PROVIDERS = [
  { name: "Anthropic", prefix: "", provider: "anthropic", finish: ["tool_use", "end_turn"] },
  { name: "OpenAI-compatible", prefix: "openai:", provider: "openai", finish: ["tool_use", "end_turn"] },
] as const;

async function tracedTenant(collector: MockHook, capture = false): Promise<Caller> {
  const who = await caller(undefined, ["sessions:read", "sessions:write", "tenant:admin"]);
  const res = await callJson(
    "/v1/tenant/settings",
    "PUT",
    {
      webhook_origins: null,
      session_retention_days: null,
      traces: { endpoint: collector.url, headers: { Authorization: COLLECTOR_TOKEN }, capture_content: capture },
    },
    who.headers,
  );
  expect(res.status).toBe(200);
  return who;
}

/** Every span the collector accepted (answered 2xx), each export decoded against the OTLP definitions. */
function accepted(requests: RecordedRequest[], skip = 0): DecodedSpan[] {
  return requests.slice(skip).flatMap((request) => decodeTraceExport(request.body_text));
}

async function waitForRoot(collector: MockHook, skip = 0, timeoutMs = 15_000): Promise<RecordedRequest[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const requests = await collector.requests();
    if (accepted(requests, skip).some((span) => span.name.startsWith("invoke_agent"))) return requests;
    if (Date.now() > deadline) throw new Error(`no root span after ${requests.length} exports`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A tool-using run: one webhook call, one built-in call, then an answer. */
async function runWithTools(who: Caller, prefix: string, headers: Record<string, string> = {}) {
  const model = mockModel(uniqueKey("traced"));
  const weather = mockHook(uniqueKey("weather"));
  await weather.script({ status: 200, body: { output: "sunny" } });
  await model.script(
    { reply: { content: [text("checking"), toolUse("call_w", "weather", { city: "Oslo" }), toolUse("call_t", "get_time")], usage: USAGE } },
    { reply: { content: [text("It is sunny in Oslo.")], usage: USAGE } },
  );
  const res = await callJson(
    "/v1/sessions",
    "POST",
    {
      model: `${prefix}${model.key}`,
      input: "weather in Oslo?",
      tools: [
        { type: "webhook", name: "weather", description: "weather", input_schema: { type: "object" }, url: weather.url },
        { type: "builtin", name: "get_time" },
      ],
    },
    { ...who.headers, ...headers },
  );
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };
  const session = await waitForStatus(who, id, ["done", "failed"]);
  expect(session.status).toBe("done");
  return { id, model, weather };
}

describe.each(PROVIDERS)("a traced run on the $name provider", ({ prefix, provider, finish }) => {
  it("exports the span tree with GenAI attributes under the caller's traceparent, without content, and sends traceparent on model and webhook requests", async () => {
    const collector = mockHook(uniqueKey("otel"));
    await collector.script({ status: 200, body: {}, repeat: 20 });
    const who = await tracedTenant(collector);
    const { id, model, weather } = await runWithTools(who, prefix, { traceparent: TRACEPARENT });
    const requests = await waitForRoot(collector);
    for (const request of requests) {
      expect(request.method).toBe("POST");
      expect(new URL(request.path, "http://x").pathname).toBe(`/hook/${collector.key}/v1/traces`);
      expect(request.headers["content-type"]).toBe("application/json");
      expect(request.headers.authorization).toBe(COLLECTOR_TOKEN);
    }
    const spans = accepted(requests);
    expect(spans.map((span) => span.name).sort()).toEqual([
      `chat ${model.key}`,
      `chat ${model.key}`,
      "execute_tool get_time",
      "execute_tool weather",
      `invoke_agent ${id}`,
    ]);
    // Each span once; one trace, the caller's.
    expect(new Set(spans.map((span) => span.spanId)).size).toBe(spans.length);
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([CALLER_TRACE]));

    const root = spans.find((span) => span.name.startsWith("invoke_agent"))!;
    expect(root.parentSpanId).toBe(CALLER_SPAN);
    expect(root.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": provider,
      "gen_ai.request.model": model.key,
      "gen_ai.conversation.id": id,
      "gen_ai.usage.input_tokens": 22,
      "gen_ai.usage.output_tokens": 10,
    });
    expect(root.status?.code ?? 0).toBe(0);

    const chats = spans
      .filter((span) => span.name.startsWith("chat "))
      .sort((a, b) => Number(BigInt(a.startTimeUnixNano) - BigInt(b.startTimeUnixNano)));
    chats.forEach((chat, i) => {
      expect(chat.parentSpanId).toBe(root.spanId);
      expect(chat.kind).toBe(3); // SPAN_KIND_CLIENT
      expect(chat.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": provider,
        "gen_ai.request.model": model.key,
        "gen_ai.response.model": model.key,
        "gen_ai.usage.output_tokens": 5,
        "gen_ai.conversation.id": id,
        "gen_ai.response.finish_reasons": [finish[i]],
      });
    });
    const tools = spans.filter((span) => span.name.startsWith("execute_tool "));
    for (const tool of tools) {
      expect(tool.parentSpanId).toBe(root.spanId);
      expect(tool.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.conversation.id": id });
    }
    expect(tools.map((tool) => [tool.attributes["gen_ai.tool.name"], tool.attributes["gen_ai.tool.call.id"]]).sort()).toEqual([
      ["get_time", "call_t"],
      ["weather", "call_w"],
    ]);
    // Each call's span starts when the call started (the webhook's mark, get_time's run), not when the model asked for it.
    const calls = await toolCallsOf(who, id);
    for (const tool of tools) {
      const call = calls.find((c) => c.id === tool.attributes["gen_ai.tool.call.id"])!;
      expect(BigInt(tool.startTimeUnixNano)).toBe(BigInt(Date.parse(call.started_at!)) * 1_000_000n);
    }
    // No content unless the tenant asked for it.
    for (const span of spans) {
      for (const key of ["gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"])
        expect(span.attributes).not.toHaveProperty(key);
    }
    expect(JSON.stringify(spans)).not.toContain("Oslo");

    // Outgoing requests carry the span they are made under.
    const modelRequests = await model.requests();
    expect(modelRequests.map((r) => r.headers.traceparent).sort()).toEqual(
      chats.map((chat) => `00-${CALLER_TRACE}-${chat.spanId}-01`).sort(),
    );
    const weatherSpan = tools.find((tool) => tool.attributes["gen_ai.tool.name"] === "weather")!;
    expect((await weather.requests())[0]!.headers.traceparent).toBe(`00-${CALLER_TRACE}-${weatherSpan.spanId}-01`);
  });
});

describe("traces", () => {
  it("carry message content with capture_content, and start a trace of their own without a traceparent", async () => {
    const collector = mockHook(uniqueKey("otel"));
    await collector.script({ status: 200, body: {}, repeat: 20 });
    const who = await tracedTenant(collector, true);
    await runWithTools(who, "", { traceparent: "not-a-traceparent" });
    const spans = accepted(await waitForRoot(collector));
    const root = spans.find((span) => span.name.startsWith("invoke_agent"))!;
    expect(root.parentSpanId ?? "").toBe("");
    expect(root.traceId).not.toBe(CALLER_TRACE);
    expect(String(root.attributes["gen_ai.input.messages"])).toContain("weather in Oslo?");
    const weather = spans.find((span) => span.name === "execute_tool weather")!;
    expect(JSON.parse(String(weather.attributes["gen_ai.tool.call.arguments"]))).toEqual({ city: "Oslo" });
    expect(weather.attributes["gen_ai.tool.call.result"]).toBe("sunny");
    const outputs = spans.filter((span) => span.name.startsWith("chat ")).map((span) => String(span.attributes["gen_ai.output.messages"]));
    expect(outputs.some((output) => output.includes("It is sunny in Oslo."))).toBe(true);
  });

  it("are all delivered, each span once, after the collector was down for minutes; the run is not held up", async () => {
    const collector = mockHook(uniqueKey("otel"));
    const DOWN = 3;
    await collector.script({ status: 503, body: {}, repeat: DOWN }, { status: 200, body: {}, repeat: 20 });
    const who = await tracedTenant(collector);
    const started = Date.now();
    const { id } = await runWithTools(who, "openai:");
    const requests = await waitForRoot(collector, DOWN);
    // The run ended while the collector still refused: the export waited, the loop did not.
    expect(requests[DOWN]!.received_at).toBeGreaterThan(started);
    // Down for minutes on the platform's clock (the retry schedule is scaled).
    expect((requests[DOWN]!.received_at - requests[0]!.received_at) / RETRY_SCALE).toBeGreaterThan(60_000);
    const refused = new Set(accepted(requests.slice(0, DOWN)).map((span) => span.spanId));
    const delivered = accepted(requests, DOWN);
    expect(delivered.map((span) => span.spanId).sort()).toEqual([...new Set(delivered.map((span) => span.spanId))].sort());
    for (const spanId of refused) expect(delivered.some((span) => span.spanId === spanId)).toBe(true);
    expect(delivered.map((span) => span.name).sort()).toEqual(
      ["chat", "chat", "execute_tool get_time", "execute_tool weather", `invoke_agent ${id}`].map((name) =>
        name === "chat" ? expect.stringMatching(/^chat /) : name,
      ),
    );
    // Nothing more comes: once the session owes no span (a span stays owed until its export is
    // acknowledged), no export is left to make, and the collector has every one it will get.
    await expect
      .poll(() => runInDurableObject(sessionStub(env, who.tenantId, id), (_instance, state) => new SessionStore(state.storage).spanCount()))
      .toBe(0);
    expect((await collector.requests()).length).toBe(requests.length);
  });
});

describe("the traces setting", () => {
  async function put(headers: Record<string, string>, body: unknown) {
    return callJson("/v1/tenant/settings", "PUT", body, headers);
  }

  it("is stored with the endpoint normalized and its header values masked on every read", async () => {
    const headers = await bearer({ tenantId: `t-${crypto.randomUUID()}`, scopes: ["tenant:admin"] });
    const endpoint = mockHookUrl(uniqueKey("otel"));
    const res = await put(headers, {
      webhook_origins: null,
      traces: { endpoint, headers: { Authorization: COLLECTOR_TOKEN, "X-Team": "platform-team" } },
    });
    expect(res.status).toBe(200);
    const expected = {
      webhook_origins: null,
      session_retention_days: null,
      traces: { endpoint, headers: { Authorization: "********", "X-Team": "********" }, capture_content: false },
      redaction: null,
    };
    expect(await res.json()).toEqual(expected);
    const read = await callJson("/v1/tenant/settings", "GET", undefined, headers);
    expect(await read.json()).toEqual(expected);
    // A setting without traces clears them.
    expect(await (await put(headers, { webhook_origins: null })).json()).toEqual({
      webhook_origins: null,
      session_retention_days: null,
      traces: null,
      redaction: null,
    });
  });

  it("is set and read through the SDK, the header values never shown", async () => {
    const who = await caller(undefined, ["tenant:admin"]);
    const client = createPlatformClient({
      baseUrl: BASE_URL,
      credential: who.headers.Authorization!.slice("Bearer ".length),
      // openapi-fetch hands over a whole Request; it goes to the Worker as it is.
      fetch: (input) => {
        const request = input as Request;
        return call(request.url.slice(BASE_URL.length), request);
      },
    });
    const traces: TracesSettings = {
      endpoint: mockHookUrl(uniqueKey("otel")),
      headers: { Authorization: COLLECTOR_TOKEN },
      capture_content: true,
    };
    const stored = await expectData(client.PUT("/v1/tenant/settings", { body: { webhook_origins: null, traces } }));
    expect(stored.traces).toEqual({ ...traces, headers: { Authorization: "********" } });
    expect((await expectData(client.GET("/v1/tenant/settings"))).traces).toEqual(stored.traces);
  });

  it.each([
    ["a scheme the URL guard refuses", { endpoint: "ftp://otel.example.com" }, "body.traces.endpoint"],
    ["a metadata address", { endpoint: "http://169.254.169.254" }, "body.traces.endpoint"],
    ["an origin outside webhook_origins", { endpoint: "https://otel.example.com" }, "body.traces.endpoint"],
    [
      "a masked header value sent back",
      { endpoint: "https://hooks.example.com", headers: { Authorization: "********" } },
      "body.traces.headers.Authorization",
    ],
    [
      "a header named after Object.prototype's members",
      { endpoint: "https://hooks.example.com", headers: { toString: "sk-collector-123456" } },
      "body.traces.headers.toString",
    ],
  ])("refuses %s with 400 naming the field", async (_what, traces, path) => {
    const headers = await bearer({ tenantId: `t-${crypto.randomUUID()}`, scopes: ["tenant:admin"] });
    const res = await put(headers, { webhook_origins: ["https://hooks.example.com"], traces });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toContain(path);
  });

  it.each([
    ["a header the export sets", { endpoint: "https://hooks.example.com", headers: { "Content-Type": "text/plain" } }],
    ["a header value with a line break", { endpoint: "https://hooks.example.com", headers: { "X-A": "a\r\nb" } }],
    ["an unknown field", { endpoint: "https://hooks.example.com", sample_rate: 1 }],
    ["capture_content that is not a boolean", { endpoint: "https://hooks.example.com", capture_content: "yes" }],
  ])("refuses %s with 400", async (_what, traces) => {
    const headers = await bearer({ tenantId: `t-${crypto.randomUUID()}`, scopes: ["tenant:admin"] });
    expect((await put(headers, { webhook_origins: null, traces })).status).toBe(400);
  });
});
