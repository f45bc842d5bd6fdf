import { describe, expect, it } from "vitest";
import { ModelError, type ModelRequest } from "../../src/sessions/object/model/provider";
import { chatCompletionsUrl, openAiProvider } from "../../src/sessions/object/model/openai";
import { ChatStream } from "../../src/sessions/object/model/openai-stream";
import { toChatMessages, TOOL_ERROR_PREFIX } from "../../src/sessions/object/model/openai-wire";
import { mockModel, mockUrl, uniqueKey } from "../support/mock-client";

const t = (text: string) => ({ type: "text" as const, text });
const signal = () => new AbortController().signal;

const request = (model: string, extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model,
  system: "be brief",
  messages: [{ role: "user", content: [t("hi")] }],
  tools: [],
  maxTokens: 100,
  ...extra,
});

const provider = () => openAiProvider({ baseUrl: mockUrl(), apiKey: "openai-key" });

async function failure(model: string, sig = signal()): Promise<ModelError> {
  // With a text callback, as a watched session's call: the stream's own failures are what is tested.
  const error = await provider()
    .complete(request(model), sig, () => {})
    .then(
      () => null,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

describe("the OpenAI-compatible provider", () => {
  it("streams an answer with tool calls, hands out its text as it arrives, and reads the usage at the end", async () => {
    const model = mockModel(uniqueKey("openai"));
    await model.script({
      reply: {
        content: [t("let me look that up"), { type: "tool_use", id: "call_1", name: "lookup", input: { q: "tokyo", n: 2 } }],
        usage: { input_tokens: 30, output_tokens: 12, cache_read_input_tokens: 70 },
      },
    });
    const deltas: [number, string][] = [];
    const response = await provider().complete(
      request(model.key, {
        tools: [{ name: "lookup", description: "looks up", input_schema: { type: "object", properties: { q: { type: "string" } } } }],
      }),
      signal(),
      ({ index, text }) => deltas.push([index, text]),
    );
    expect(response).toEqual({
      content: [t("let me look that up"), { type: "tool_use", id: "call_1", name: "lookup", input: { q: "tokyo", n: 2 } }],
      stopReason: "tool_use",
      usage: { input_tokens: 30, output_tokens: 12, cache_read_tokens: 70, cache_write_tokens: 0 },
      // The answering model, as the chunks name it.
      model: model.key,
    });
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map(([, text]) => text).join("")).toBe("let me look that up");
    expect(deltas.every(([index]) => index === 0)).toBe(true);

    const [seen] = await model.requests();
    expect(seen!.path).toBe("/v1/chat/completions");
    expect(seen!.headers.authorization).toBe("Bearer openai-key");
    expect(seen!.body).toEqual({
      model: model.key,
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "hi" },
      ],
      max_completion_tokens: 100,
      tools: [
        {
          type: "function",
          function: { name: "lookup", description: "looks up", parameters: { type: "object", properties: { q: { type: "string" } } } },
        },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("asks for one JSON body when nobody takes the text, and reads the same answer from it", async () => {
    const model = mockModel(uniqueKey("whole"));
    await model.script({
      reply: {
        content: [t("all at once"), { type: "tool_use", id: "call_1", name: "lookup", input: { q: "tokyo" } }],
        usage: { input_tokens: 30, output_tokens: 12 },
      },
    });
    const response = await provider().complete(request(model.key), signal());
    expect(response).toEqual({
      content: [t("all at once"), { type: "tool_use", id: "call_1", name: "lookup", input: { q: "tokyo" } }],
      stopReason: "tool_use",
      usage: { input_tokens: 30, output_tokens: 12, cache_read_tokens: 0, cache_write_tokens: 0 },
      model: model.key,
    });
    const body = (await model.requests())[0]!.body as Record<string, unknown>;
    expect(body).not.toHaveProperty("stream");
    expect(body).not.toHaveProperty("stream_options");
  });

  it("maps the stored history to Chat Completions messages, tool results after their call", () => {
    const messages = toChatMessages({
      model: "m",
      system: null,
      tools: [],
      maxTokens: 1,
      messages: [
        { role: "user", content: [t("task"), t("more")] },
        {
          role: "assistant",
          content: [
            t("calling"),
            { type: "tool_use", id: "c1", name: "a", input: { x: 1 } },
            { type: "tool_use", id: "c2", name: "b", input: "not json" },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "c1", content: "one" },
            { type: "tool_result", tool_use_id: "c2", content: "bad", is_error: true },
          ],
        },
        { role: "user", content: [t("next question")] },
        { role: "assistant", content: [t("")] },
      ],
    });
    expect(messages).toEqual([
      { role: "user", content: "task\n\nmore" },
      {
        role: "assistant",
        content: "calling",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "a", arguments: '{"x":1}' } },
          { id: "c2", type: "function", function: { name: "b", arguments: "not json" } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "one" },
      { role: "tool", tool_call_id: "c2", content: `${TOOL_ERROR_PREFIX}bad` },
      { role: "user", content: "next question" },
    ]);
  });

  it("reports a cut-off answer as max_tokens and a content filter as a refusal", async () => {
    for (const [given, expected] of [
      ["max_tokens", "max_tokens"],
      ["refusal", "refusal"],
      ["end_turn", "end_turn"],
    ]) {
      const model = mockModel(uniqueKey("finish"));
      await model.script({ reply: { content: [t("partial")], stop_reason: given } });
      const response = await provider().complete(request(model.key), signal());
      expect([given, response.stopReason]).toEqual([given, expected]);
    }
  });

  it("reads a whole JSON answer from a server that does not stream", async () => {
    const model = mockModel(uniqueKey("nostream"));
    await model.script({
      reply: { content: [{ type: "tool_use", id: "bad id!", name: "a", input: {} }], usage: { input_tokens: 4, output_tokens: 2 } },
    });
    // A server that ignores `stream`: the request reaches the mock without it.
    const nonStreaming = openAiProvider({
      baseUrl: mockUrl(),
      apiKey: "k",
      fetchImpl: (input, init) => {
        const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
        delete body.stream;
        delete body.stream_options;
        return fetch(input, { ...init, body: JSON.stringify(body) });
      },
    });
    const response = await nonStreaming.complete(request(model.key), signal());
    expect(response.stopReason).toBe("tool_use");
    expect(response.usage).toEqual({ input_tokens: 4, output_tokens: 2, cache_read_tokens: 0, cache_write_tokens: 0 });
    // An id the API could not address in a path is replaced.
    expect(response.content).toEqual([{ type: "tool_use", id: expect.stringMatching(/^call_[0-9a-f]{32}$/), name: "a", input: {} }]);
  });

  it("classifies failures as retryable or fatal, naming the status and the error type", async () => {
    const cases: [unknown, boolean, number | null, string][] = [
      [{ status: 429, headers: { "retry-after": "2" } }, true, 429, "model provider answered 429 (rate_limit_exceeded)"],
      [{ status: 500 }, true, 500, "model provider answered 500 (server_error)"],
      [{ status: 400 }, false, 400, "model provider answered 400 (invalid_request_error)"],
      [{ status: 401 }, false, 401, "model provider answered 401 (authentication_error)"],
      [{ invalid_json: true }, true, 200, "the model answered with a body that is not JSON"],
      [{ reset: true }, true, null, ""],
    ];
    for (const [step, retryable, status, message] of cases) {
      const model = mockModel(uniqueKey("classify"));
      await model.script(step as never);
      const error = await failure(model.key);
      expect([JSON.stringify(step), error.retryable, error.status]).toEqual([JSON.stringify(step), retryable, status]);
      if (message) expect(error.message).toBe(message);
    }
    const limited = mockModel(uniqueKey("retry-after"));
    await limited.script({ status: 429, headers: { "retry-after": "2" } });
    expect((await failure(limited.key)).retryAfterMs).toBe(2000);
  });

  it("treats a timeout as retryable and an abort as final, and refuses to call without a key", async () => {
    const slow = mockModel(uniqueKey("timeout"));
    await slow.script({ hang: true });
    expect((await failure(slow.key, AbortSignal.timeout(100))).retryable).toBe(true);
    const aborted = mockModel(uniqueKey("abort"));
    await aborted.script({ hang: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect((await failure(aborted.key, controller.signal)).retryable).toBe(false);
    const keyless = openAiProvider({ baseUrl: mockUrl(), apiKey: undefined });
    await expect(keyless.complete(request("x"), signal())).rejects.toMatchObject({
      message: "the model provider is not configured",
      retryable: false,
    });
  });

  it("finds the endpoint with or without /v1 in the base URL", () => {
    expect(chatCompletionsUrl("https://api.openai.com")).toBe("https://api.openai.com/v1/chat/completions");
    expect(chatCompletionsUrl("http://localhost:8000/v1/")).toBe("http://localhost:8000/v1/chat/completions");
  });
});

describe("a Chat Completions stream", () => {
  const chunk = (choice: Record<string, unknown>) => JSON.stringify({ choices: [{ index: 0, ...choice }] });

  it("that ends before a finish reason is a retryable failure", () => {
    const stream = new ChatStream();
    stream.add(chunk({ delta: { content: "half an ans" } }));
    expect(() => stream.result(() => "id")).toThrowError(expect.objectContaining({ retryable: true }));
  });

  it("that carries an error event fails retryably, and garbage is not an answer", () => {
    expect(() => new ChatStream().add(JSON.stringify({ error: { type: "server_error", message: "boom" } }))).toThrowError(/server_error/);
    expect(() => new ChatStream().add("{not json")).toThrowError(ModelError);
  });

  it("gathers tool calls by index, a refusal as text, and usage counted apart from the cache", () => {
    const stream = new ChatStream();
    stream.add(chunk({ delta: { tool_calls: [{ index: 1, id: "c2", function: { name: "b", arguments: '{"y"' } }] } }));
    stream.add(chunk({ delta: { tool_calls: [{ index: 0, id: "c1", function: { name: "a", arguments: "" } }] } }));
    stream.add(chunk({ delta: { tool_calls: [{ index: 1, function: { arguments: ":2}" } }] } }));
    stream.add(chunk({ delta: {}, finish_reason: "tool_calls" }));
    stream.add(
      JSON.stringify({ choices: [], usage: { prompt_tokens: 100, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 60 } } }),
    );
    stream.add("[DONE]");
    expect(stream.done).toBe(true);
    expect(stream.result(() => "new")).toEqual({
      content: [
        { type: "tool_use", id: "c1", name: "a", input: {} },
        { type: "tool_use", id: "c2", name: "b", input: { y: 2 } },
      ],
      stopReason: "tool_use",
      usage: { input_tokens: 40, output_tokens: 9, cache_read_tokens: 60, cache_write_tokens: 0 },
    });

    const refused = new ChatStream();
    refused.add(chunk({ delta: { refusal: "I can't help with that." } }));
    refused.add(chunk({ delta: {}, finish_reason: "stop" }));
    expect(refused.result(() => "x")).toMatchObject({ content: [t("I can't help with that.")], stopReason: "refusal" });
  });
});
