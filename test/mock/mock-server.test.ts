/**
 * The mock server as tests see it: run from workerd against the Node server that
 * globalSetup starts, through the same client the other suites use.
 */
import { describe, expect, it } from "vitest";
import { mockHook, mockHookUrl, mockModel, mockUrl, uniqueKey } from "../support/mock-client";

const SHORT_DELAY_MS = 120;
const CLIENT_GIVE_UP_MS = 60;

function callModel(model: string, signal?: AbortSignal): Promise<Response> {
  return fetch(`${mockUrl()}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "X-Api-Key": "test-key" },
    body: JSON.stringify({ model, max_tokens: 64, messages: [{ role: "user", content: "hi" }] }),
    signal,
  });
}

function callHook(key: string, payload: unknown = { name: "lookup" }, subpath = ""): Promise<Response> {
  return fetch(mockHookUrl(key, subpath), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(payload),
  });
}

/** Polls until the predicate holds over the recorded requests, since server-side events lag the client. */
async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 2_000;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("model queue", () => {
  it("answers a default end_turn message when nothing is scripted", async () => {
    const key = uniqueKey("default");
    const res = await callModel(key);
    expect(res.status).toBe(200);
    const body = await res.json<Record<string, unknown>>();
    expect(body).toMatchObject({
      type: "message",
      role: "assistant",
      model: key,
      content: [{ type: "text", text: "ok" }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5 },
    });
    expect(body.id).toEqual(expect.any(String));
  });

  it("records lower-cased headers, the parsed body and timestamps", async () => {
    const key = uniqueKey("record");
    const before = Date.now();
    await (await callModel(key)).text();
    const [request] = await eventually(
      () => mockModel(key).requests(),
      (r) => r[0]?.answered_at !== undefined,
    );
    expect(request?.headers["x-api-key"]).toBe("test-key");
    expect(request?.body).toMatchObject({ model: key, max_tokens: 64 });
    expect(request?.received_at).toBeGreaterThanOrEqual(before - 1_000);
    expect(request?.answered_at).toBeGreaterThanOrEqual(request?.received_at ?? Infinity);
  });

  it("plays scripted steps in order, then falls back to the default", async () => {
    const model = mockModel(uniqueKey("fifo"));
    await model.script(
      { reply: { content: [{ type: "tool_use", id: "tu_1", name: "search", input: { q: "x" } }] } },
      { reply: { content: [{ type: "text", text: "cut" }], stop_reason: "max_tokens", usage: { output_tokens: 64 } } },
    );
    const first = await (await callModel(model.key)).json<Record<string, unknown>>();
    expect(first).toMatchObject({ stop_reason: "tool_use", content: [{ type: "tool_use", id: "tu_1" }] });
    const second = await (await callModel(model.key)).json<Record<string, unknown>>();
    expect(second).toMatchObject({ stop_reason: "max_tokens", usage: { input_tokens: 10, output_tokens: 64 } });
    const third = await (await callModel(model.key)).json<{ content: unknown }>();
    expect(third.content).toEqual([{ type: "text", text: "ok" }]);
    expect(await model.requests()).toHaveLength(3);
  });

  it("answers raw status steps with an Anthropic error body by default, and repeats them", async () => {
    const model = mockModel(uniqueKey("status"));
    await model.script(
      { status: 529, repeat: 2 },
      { status: 429, headers: { "Retry-After": "1" }, body: { custom: true } },
      { status: 200, body: "plain text" },
    );
    for (let i = 0; i < 2; i++) {
      const res = await callModel(model.key);
      expect(res.status).toBe(529);
      expect(await res.json()).toEqual({ type: "error", error: { type: "overloaded_error", message: expect.any(String) } });
    }
    const limited = await callModel(model.key);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1");
    expect(await limited.json()).toEqual({ custom: true });
    const plain = await callModel(model.key);
    expect(await plain.text()).toBe("plain text");
    expect((await callModel(model.key)).status).toBe(200);
  });

  it("sends a 200 JSON response whose body does not parse for invalid_json", async () => {
    const model = mockModel(uniqueKey("badjson"));
    await model.script({ invalid_json: true });
    const res = await callModel(model.key);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    await expect(res.json()).rejects.toThrow();
  });

  it("drops the connection without an answer for reset", async () => {
    const model = mockModel(uniqueKey("reset"));
    await model.script({ reset: true });
    await expect(callModel(model.key)).rejects.toThrow();
    const [request] = await model.requests();
    expect(request?.answered_at).toBeUndefined();
    expect((await callModel(model.key)).status).toBe(200);
  });

  it("never answers a hang step and notes when the client gives up", async () => {
    const model = mockModel(uniqueKey("hang"));
    await model.script({ hang: true });
    await expect(callModel(model.key, AbortSignal.timeout(CLIENT_GIVE_UP_MS))).rejects.toThrow();
    const [request] = await eventually(
      () => model.requests(),
      (r) => r[0]?.disconnected_at !== undefined,
    );
    expect(request?.answered_at).toBeUndefined();
    expect(request?.disconnected_at).toBeGreaterThanOrEqual(request?.received_at ?? Infinity);
  });

  it("waits delay_ms before answering", async () => {
    const model = mockModel(uniqueKey("delay"));
    await model.script({ delay_ms: SHORT_DELAY_MS, status: 503 });
    const started = Date.now();
    const res = await callModel(model.key);
    expect(res.status).toBe(503);
    expect(Date.now() - started).toBeGreaterThanOrEqual(SHORT_DELAY_MS - 5);
    const [request] = await eventually(
      () => model.requests(),
      (r) => r[0]?.answered_at !== undefined,
    );
    expect((request?.answered_at ?? 0) - (request?.received_at ?? 0)).toBeGreaterThanOrEqual(SHORT_DELAY_MS - 5);
  });

  it("abandons a delayed answer quietly when the client disconnects", async () => {
    const model = mockModel(uniqueKey("abandon"));
    await model.script({ delay_ms: SHORT_DELAY_MS * 2, reply: { content: [] } });
    await expect(callModel(model.key, AbortSignal.timeout(CLIENT_GIVE_UP_MS))).rejects.toThrow();
    const [request] = await eventually(
      () => model.requests(),
      (r) => r[0]?.disconnected_at !== undefined,
    );
    expect(request?.disconnected_at).toBeDefined();
    await new Promise((r) => setTimeout(r, SHORT_DELAY_MS * 2));
    expect((await model.requests())[0]?.answered_at).toBeUndefined();
  });

  it("rejects a request with no model and scripts with malformed steps", async () => {
    const res = await fetch(`${mockUrl()}/v1/messages`, { method: "POST", body: "{}" });
    expect(res.status).toBe(400);
    const model = mockModel(uniqueKey("invalid"));
    await expect(model.script({ status: 42 })).rejects.toThrow(/status/);
    await expect(model.script({ hang: true, reset: true } as never)).rejects.toThrow(/one kind/);
    await expect(model.script({ hold: true } as never)).rejects.toThrow(/not allowed/);
    expect((await callModel(model.key)).status).toBe(200);
  });
});

function callChat(model: string, body: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${mockUrl()}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer k" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }], ...body }),
  });
}

/** The `data:` payloads of a Server-Sent Events body. */
function events(text: string): string[] {
  return text
    .split("\n\n")
    .filter((frame) => frame.startsWith("data: "))
    .map((frame) => frame.slice("data: ".length));
}

describe("model queue, Chat Completions dialect", () => {
  it("answers the same scripted reply as a Chat Completions message, with usage folding the cache in", async () => {
    const model = mockModel(uniqueKey("chat"));
    await model.script({
      reply: {
        content: [
          { type: "text", text: "hi" },
          { type: "tool_use", id: "call_1", name: "f", input: { a: 1 } },
        ],
        usage: { input_tokens: 3, cache_read_input_tokens: 4 },
      },
    });
    const body = await (await callChat(model.key)).json<Record<string, unknown>>();
    expect(body).toMatchObject({
      object: "chat.completion",
      model: model.key,
      choices: [
        {
          message: {
            role: "assistant",
            content: "hi",
            tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: '{"a":1}' } }],
          },
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 7, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 4 } },
    });
    expect((await model.requests())[0]?.path).toBe("/v1/chat/completions");
  });

  it("streams text and tool calls in pieces, then the finish reason, the usage when asked, and [DONE]", async () => {
    const model = mockModel(uniqueKey("chat-stream"));
    await model.script({
      reply: {
        content: [
          { type: "text", text: "hello there" },
          { type: "tool_use", id: "call_9", name: "g", input: { q: "x" } },
        ],
      },
    });
    const res = await callChat(model.key, { stream: true, stream_options: { include_usage: true } });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const data = events(await res.text());
    expect(data.at(-1)).toBe("[DONE]");
    const chunks = data.slice(0, -1).map(
      (d) =>
        JSON.parse(d) as {
          choices: { delta: { content?: string; tool_calls?: { function: { arguments?: string } }[] }; finish_reason: string | null }[];
          usage?: unknown;
        },
    );
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe("hello there");
    expect(
      chunks
        .flatMap((c) => c.choices[0]?.delta.tool_calls ?? [])
        .map((t) => t.function.arguments ?? "")
        .join(""),
    ).toBe('{"q":"x"}');
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(["tool_calls"]);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 5 } });
  });

  it("answers status steps with an OpenAI error body", async () => {
    const model = mockModel(uniqueKey("chat-status"));
    await model.script({ status: 429 });
    const res = await callChat(model.key);
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({ error: { message: expect.any(String), type: "rate_limit_exceeded", code: null } });
  });
});

describe("steps that match a request", () => {
  it("go to requests whose system prompt holds their text, ahead of the steps without a match", async () => {
    const model = mockModel(uniqueKey("match"));
    await model.script(
      { reply: { content: [{ type: "text", text: "plain one" }] } },
      { match: { system_includes: "summarize" }, reply: { content: [{ type: "text", text: "a summary" }] } },
      { reply: { content: [{ type: "text", text: "plain two" }] } },
    );
    const ask = async (system?: unknown) => {
      const res = await fetch(`${mockUrl()}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: model.key, max_tokens: 5, messages: [], ...(system ? { system } : {}) }),
      });
      return ((await res.json()) as { content: { text: string }[] }).content[0]!.text;
    };
    expect(await ask()).toBe("plain one");
    expect(await ask([{ type: "text", text: "please summarize this" }])).toBe("a summary");
    expect(await ask("please summarize this")).toBe("plain two"); // no matching step left: the next plain one
    expect(await ask()).toBe("ok");
  });

  it("are refused with a malformed match", async () => {
    const res = await fetch(`${mockUrl()}/_mock/model/${uniqueKey("badmatch")}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ steps: [{ match: { system_includes: "" }, status: 500 }] }),
    });
    expect(res.status).toBe(400);
  });
});

describe("webhook queue", () => {
  it("answers the default output and records raw and parsed bodies with the full path", async () => {
    const hook = mockHook(uniqueKey("hook"));
    const res = await callHook(hook.key, { tool_call_id: "tc_1" }, "/tools/run?x=1");
    expect(await res.json()).toEqual({ output: "webhook ok" });
    const [request] = await hook.requests();
    expect(request).toMatchObject({
      method: "POST",
      path: `/hook/${hook.key}/tools/run?x=1`,
      body_text: '{"tool_call_id":"tc_1"}',
      body: { tool_call_id: "tc_1" },
    });
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.received_at).toEqual(expect.any(Number));
  });

  it("holds a call until released, then answers with the then step", async () => {
    const hook = mockHook(uniqueKey("hold"));
    await hook.script({ hold: true, then: { status: 201, body: { output: "late" } } }, { hold: true });
    const pending = callHook(hook.key);
    const pendingDefault = callHook(hook.key);
    await hook.waitForRequests(2);
    const early = await Promise.race([pending.then(() => "answered"), new Promise((r) => setTimeout(r, 50, "held"))]);
    expect(early).toBe("held");
    const releasedAt = Date.now();
    expect(await hook.release()).toBe(2);
    const [a, b] = await Promise.all([pending, pendingDefault]);
    // Both were sent at once, so which one took the first step is up to the network.
    const bodies = await Promise.all([a.json(), b.json()]);
    expect(bodies).toEqual(expect.arrayContaining([{ output: "late" }, { output: "webhook ok" }]));
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    const requests = await eventually(
      () => hook.requests(),
      (r) => r.every((q) => q.answered_at !== undefined),
    );
    for (const q of requests) expect(q.answered_at).toBeGreaterThanOrEqual(releasedAt - 1_000);
    expect(await hook.release()).toBe(0);
  });

  it("supports status, repeat, reset and hang steps", async () => {
    const hook = mockHook(uniqueKey("steps"));
    await hook.script({ status: 500, repeat: 2 }, { reset: true }, { hang: true, delay_ms: 1 });
    expect((await callHook(hook.key)).status).toBe(500);
    expect((await callHook(hook.key)).status).toBe(500);
    await expect(callHook(hook.key)).rejects.toThrow();
    const hung = fetch(hook.url, { method: "POST", body: "x", signal: AbortSignal.timeout(CLIENT_GIVE_UP_MS) });
    await expect(hung).rejects.toThrow();
    const requests = await hook.requests();
    expect(requests.map((r) => r.answered_at !== undefined)).toEqual([true, true, false, false]);
    expect(requests[3]?.body).toBeNull();
    expect(requests[3]?.body_text).toBe("x");
  });
});

describe("keys", () => {
  it("keeps each key's steps and records apart, and forgets a key on request", async () => {
    const a = mockModel(uniqueKey("a"));
    const b = mockModel(uniqueKey("b"));
    await a.script({ status: 500 });
    expect((await callModel(b.key)).status).toBe(200);
    expect((await callModel(a.key)).status).toBe(500);
    expect(await a.requests()).toHaveLength(1);
    expect(await b.requests()).toHaveLength(1);
    expect(await mockHook(a.key).requests()).toHaveLength(0);
    await a.script({ status: 500 });
    await a.forget();
    expect(await a.requests()).toHaveLength(0);
    expect((await callModel(a.key)).status).toBe(200);
  });
});

describe("pages and routing", () => {
  it("serves text pages, redirects, big pages and binary", async () => {
    const base = mockUrl();
    const page = await fetch(`${base}/page/hello`);
    expect(page.headers.get("content-type")).toContain("text/plain");
    expect(await page.text()).toBe("page hello");
    const target = `${base}/page/there`;
    const redirect = await fetch(`${base}/redirect?to=${encodeURIComponent(target)}&status=307`, { redirect: "manual" });
    expect(redirect.status).toBe(307);
    expect(redirect.headers.get("location")).toBe(target);
    expect(await (await fetch(`${base}/redirect?to=${encodeURIComponent(target)}`)).text()).toBe("page there");
    expect((await (await fetch(`${base}/big?bytes=200000`)).arrayBuffer()).byteLength).toBe(200_000);
    const binary = await fetch(`${base}/binary`);
    expect(binary.headers.get("content-type")).toBe("application/octet-stream");
    expect(new Uint8Array(await binary.arrayBuffer())[255]).toBe(255);
  });

  it("answers unknown routes with a 404 JSON body", async () => {
    for (const [method, path] of [
      ["GET", "/nope"],
      ["GET", "/v1/messages"],
      ["POST", "/_mock/model/k/other"],
    ]) {
      const res = await fetch(`${mockUrl()}${path}`, { method });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: "not_found" });
    }
  });
});

describe("model queue, streaming", () => {
  function streamModel(model: string): Promise<Response> {
    return fetch(`${mockUrl()}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model, max_tokens: 64, stream: true, messages: [{ role: "user", content: "hi" }] }),
    });
  }

  it("answers a request with stream: true in Anthropic's event format", async () => {
    const key = uniqueKey("stream");
    await mockModel(key).script({
      reply: {
        content: [
          { type: "text", text: "abcdefg" },
          { type: "tool_use", id: "toolu_m", name: "t", input: { a: 1 } },
        ],
      },
      stream: { chunk_chars: 3 },
    });
    const res = await streamModel(key);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const body = await res.text();
    const names = [...body.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    expect(names).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(body).toContain('"text":"abc"');
    expect(body).toContain('"stop_reason":"tool_use"');
  });

  it("breaks a stream after the given number of events, and refuses a bad shape", async () => {
    const key = uniqueKey("break");
    await mockModel(key).script({ reply: { content: [{ type: "text", text: "abcdefgh" }] }, stream: { break_after: 3 } });
    const res = await streamModel(key);
    await expect(res.text()).rejects.toThrow();
    const bad = await fetch(`${mockUrl()}/_mock/model/${uniqueKey("bad")}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ steps: [{ status: 500, stream: { break_after: 2 } }] }),
    });
    expect(bad.status).toBe(400);
  });
});
