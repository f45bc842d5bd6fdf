import { describe, expect, it, vi } from "vitest";
import { anthropicProvider } from "../../src/sessions/object/model/anthropic";
import { providerErrorType, publicProviderError } from "../../src/sessions/object/model/provider-errors";
import { mergeTurns, ModelError, parseRetryAfter, type ModelRequest } from "../../src/sessions/object/model/provider";
import { backoffDelay, MAX_RETRY_AFTER_MS } from "../../src/sessions/object/loop/retry";
import { mockModel, mockUrl, uniqueKey } from "../support/mock-client";

const request = (model: string): ModelRequest => ({
  model,
  system: "be brief",
  messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
  tools: [],
  maxTokens: 100,
});

async function failure(model: string, signal = new AbortController().signal): Promise<ModelError> {
  const provider = anthropicProvider({ baseUrl: mockUrl(), apiKey: "k" });
  // With a text callback, as a watched session's call: the stream's own failures are what is tested.
  const error = await provider
    .complete(request(model), signal, () => {})
    .then(
      () => null,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

describe("the Anthropic provider", () => {
  it("sends the key, the version and the system prompt, and reads usage", async () => {
    const model = mockModel(uniqueKey("anthropic"));
    await model.script({
      reply: {
        content: [
          { type: "text", text: "yo" },
          { type: "thinking", thinking: "hmm", signature: "sig" },
        ],
        usage: { input_tokens: 7, output_tokens: 3 },
      },
    });
    const provider = anthropicProvider({ baseUrl: mockUrl(), apiKey: "secret-key" });
    const response = await provider.complete(request(model.key), new AbortController().signal);
    expect(response).toEqual({
      content: [
        { type: "text", text: "yo" },
        { type: "thinking", thinking: "hmm", signature: "sig" },
      ],
      stopReason: "end_turn",
      usage: { input_tokens: 7, output_tokens: 3, cache_read_tokens: 0, cache_write_tokens: 0 },
      // The answering model, as message_start names it.
      model: model.key,
    });
    const [seen] = await model.requests();
    expect(seen!.headers["x-api-key"]).toBe("secret-key");
    expect(seen!.body).toMatchObject({
      model: model.key,
      system: [{ type: "text", text: "be brief", cache_control: { type: "ephemeral" } }],
      max_tokens: 100,
    });
    expect(seen!.body).not.toHaveProperty("tools");
  });

  it("marks the stable prefix for the prompt cache, at most four breakpoints, and reads cache usage", async () => {
    const model = mockModel(uniqueKey("cache"));
    await model.script({
      reply: {
        content: [{ type: "text", text: "cached" }],
        usage: { input_tokens: 5, cache_read_input_tokens: 900, cache_creation_input_tokens: 40 },
      },
    });
    const provider = anthropicProvider({ baseUrl: mockUrl(), apiKey: "k" });
    const t = (text: string) => ({ type: "text" as const, text });
    const response = await provider.complete(
      {
        model: model.key,
        system: "sys",
        tools: [
          { name: "a", description: "a", input_schema: { type: "object" } },
          { name: "b", description: "b", input_schema: { type: "object" } },
        ],
        messages: [
          { role: "user", content: [t("task")], cache: true },
          { role: "user", content: [t("summary")], cache: true },
          { role: "assistant", content: [t("older")] },
          { role: "user", content: [t("a third flag: over the limit")], cache: true },
        ],
        maxTokens: 50,
      },
      new AbortController().signal,
    );
    expect(response.usage).toEqual({ input_tokens: 5, output_tokens: 5, cache_read_tokens: 900, cache_write_tokens: 40 });
    const body = (await model.requests())[0]!.body as {
      system: unknown;
      tools: Record<string, unknown>[];
      messages: { content: Record<string, unknown>[] }[];
    };
    const ephemeral = { type: "ephemeral" };
    expect(body.tools.map((tool) => tool.cache_control)).toEqual([undefined, ephemeral]);
    expect(body.system).toEqual([{ type: "text", text: "sys", cache_control: ephemeral }]);
    expect(body.messages[0]!.content).toEqual([
      { ...t("task"), cache_control: ephemeral },
      { ...t("summary"), cache_control: ephemeral },
    ]);
    expect(JSON.stringify(body).split('"cache_control"').length - 1).toBe(4);
  });

  it("reports the stop reasons the loop acts on and calls any other one unknown", async () => {
    for (const [given, expected] of [
      ["max_tokens", "max_tokens"],
      ["refusal", "refusal"],
      ["stop_sequence", "stop_sequence"],
      ["pause_turn", "pause_turn"],
      ["model_context_window_exceeded", "context_window_exceeded"],
      ["a_reason_from_the_future", "unknown"],
    ]) {
      const model = mockModel(uniqueKey("stop"));
      await model.script({ reply: { content: [{ type: "text", text: "x" }], stop_reason: given } });
      const response = await anthropicProvider({ baseUrl: mockUrl(), apiKey: "k" }).complete(
        request(model.key),
        new AbortController().signal,
      );
      expect([given, response.stopReason]).toEqual([given, expected]);
    }
  });

  it("classifies failures as retryable or fatal", async () => {
    const cases: [unknown, boolean, number | null][] = [
      [{ status: 429, headers: { "retry-after": "3" } }, true, 429],
      [{ status: 500 }, true, 500],
      [{ status: 529 }, true, 529],
      [{ status: 400 }, false, 400],
      [{ status: 401 }, false, 401],
      [{ status: 404 }, false, 404],
      [{ invalid_json: true }, true, 200],
      [{ status: 200, body: { not: "a message" } }, true, 200],
      [{ reset: true }, true, null],
    ];
    for (const [step, retryable, status] of cases) {
      const model = mockModel(uniqueKey("classify"));
      await model.script(step as never);
      const error = await failure(model.key);
      expect([JSON.stringify(step), error.retryable, error.status]).toEqual([JSON.stringify(step), retryable, status]);
    }
  });

  it("keeps the provider's error text out of the error and logs it as one JSON line", async () => {
    const model = mockModel(uniqueKey("provider-text"));
    const text = "Your credit balance is too low; organization org-platform-42";
    await model.script({ status: 400, body: { type: "error", error: { type: "invalid_request_error", message: text } } });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const error = await failure(model.key);
      expect(error.message).toBe("model provider answered 400 (invalid_request_error)");
      const lines = warn.mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>);
      expect(lines).toEqual([
        {
          level: "warn",
          event: "model_provider_error",
          provider: "anthropic",
          status: 400,
          error_type: "invalid_request_error",
          message: expect.stringContaining(text),
        },
      ]);
    } finally {
      warn.mockRestore();
    }
  });

  it("keeps a network error's text out of the error", async () => {
    const provider = anthropicProvider({
      baseUrl: "https://provider.test",
      apiKey: "k",
      fetchImpl: async () => {
        throw new TypeError("connect ECONNREFUSED 10.1.2.3:443 (internal-llm-proxy.platform.lan)");
      },
    });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const error = await provider.complete(request("m"), new AbortController().signal).catch((e: unknown) => e as ModelError);
      expect(error).toMatchObject({ message: "network error calling the model", retryable: true });
      expect(String(warn.mock.calls[0]?.[0])).toContain("internal-llm-proxy");
    } finally {
      warn.mockRestore();
    }
  });

  it.each([
    ['{"type":"error","error":{"type":"overloaded_error","message":"x"}}', "overloaded_error"],
    ['{"error":{"type":"Not An Identifier: see https://x"}}', null],
    ['{"error":{"type":42}}', null],
    ["<html>bad gateway</html>", null],
    ["", null],
  ])("reads the error type of %s as %s", (body, type) => {
    expect(providerErrorType(body)).toBe(type);
  });

  it("says only the status when there is no error type", () => {
    expect(publicProviderError(502, null)).toBe("model provider answered 502");
    expect(publicProviderError(400, "invalid_request_error")).toBe("model provider answered 400 (invalid_request_error)");
  });

  it("reports Retry-After in milliseconds", async () => {
    const model = mockModel(uniqueKey("retry-after"));
    await model.script({ status: 429, headers: { "retry-after": "3" } });
    expect((await failure(model.key)).retryAfterMs).toBe(3000);
  });

  it("treats a timeout as retryable and an abort as final", async () => {
    const slow = mockModel(uniqueKey("timeout"));
    await slow.script({ hang: true });
    const timedOut = await failure(slow.key, AbortSignal.timeout(100));
    expect([timedOut.retryable, timedOut.message]).toEqual([true, "the model call timed out"]);

    const aborted = mockModel(uniqueKey("abort"));
    await aborted.script({ hang: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect((await failure(aborted.key, controller.signal)).retryable).toBe(false);
  });

  it("refuses to call without an API key", async () => {
    const provider = anthropicProvider({ baseUrl: mockUrl(), apiKey: undefined });
    await expect(provider.complete(request("x"), new AbortController().signal)).rejects.toMatchObject({ retryable: false });
  });
});

describe("provider helpers", () => {
  it("parses Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("2", now)).toBe(2000);
    expect(parseRetryAfter("1.5", now)).toBe(1500);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:10 GMT", now)).toBe(10_000);
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });

  it("joins consecutive turns of the same role", () => {
    const t = (text: string) => ({ type: "text" as const, text });
    expect(
      mergeTurns([
        { role: "user", content: [t("a")] },
        { role: "user", content: [t("b")] },
        { role: "assistant", content: [t("c")] },
      ]),
    ).toEqual([
      { role: "user", content: [t("a"), t("b")] },
      { role: "assistant", content: [t("c")] },
    ]);
  });

  it("backs off exponentially with jitter and never undercuts Retry-After", () => {
    expect(backoffDelay(1, null, 0)).toBe(500);
    expect(backoffDelay(1, null, 1)).toBe(1000);
    expect(backoffDelay(3, null, 1)).toBe(4000);
    expect(backoffDelay(20, null, 1)).toBe(60_000);
    expect(backoffDelay(1, 2000, 0)).toBe(2000);
    expect(backoffDelay(1, 10 * 3600_000, 0)).toBe(MAX_RETRY_AFTER_MS);
  });
});

describe("the Anthropic provider's stream", () => {
  it("asks for a stream, hands on the text as it comes, and resolves with the whole answer", async () => {
    const model = mockModel(uniqueKey("stream"));
    await model.script({
      reply: { content: [{ type: "text", text: "streamed words" }], usage: { input_tokens: 3, output_tokens: 2 } },
      stream: { chunk_chars: 5 },
    });
    const pieces: string[] = [];
    const provider = anthropicProvider({ baseUrl: mockUrl(), apiKey: "k" });
    const response = await provider.complete(request(model.key), new AbortController().signal, (d) => pieces.push(d.text));
    expect(pieces).toEqual(["strea", "med w", "ords"]);
    expect(response).toEqual({
      content: [{ type: "text", text: "streamed words" }],
      stopReason: "end_turn",
      usage: { input_tokens: 3, output_tokens: 2, cache_read_tokens: 0, cache_write_tokens: 0 },
      model: model.key,
    });
    expect((await model.requests())[0]!.body).toMatchObject({ stream: true });
  });

  it("asks for the whole answer in one body when nobody takes the text", async () => {
    const model = mockModel(uniqueKey("whole"));
    await model.script({ reply: { content: [{ type: "text", text: "all at once" }], usage: { input_tokens: 3, output_tokens: 2 } } });
    const provider = anthropicProvider({ baseUrl: mockUrl(), apiKey: "k" });
    const response = await provider.complete(request(model.key), new AbortController().signal);
    expect(response).toEqual({
      content: [{ type: "text", text: "all at once" }],
      stopReason: "end_turn",
      usage: { input_tokens: 3, output_tokens: 2, cache_read_tokens: 0, cache_write_tokens: 0 },
      model: model.key,
    });
    expect((await model.requests())[0]!.body).toMatchObject({ stream: false });
  });

  it("rejects retryably when the stream breaks or hangs past the deadline, and finally on an abort", async () => {
    const broken = mockModel(uniqueKey("broken"));
    await broken.script({ reply: { content: [{ type: "text", text: "never finished" }] }, stream: { break_after: 4 } });
    expect(await failure(broken.key)).toMatchObject({ retryable: true });

    const hung = mockModel(uniqueKey("hung"));
    await hung.script({ reply: { content: [{ type: "text", text: "stuck" }] }, stream: { hang_after: 3 } });
    expect(await failure(hung.key, AbortSignal.timeout(300))).toMatchObject({ retryable: true, message: "the model call timed out" });

    const cut = mockModel(uniqueKey("cut"));
    await cut.script({ reply: { content: [{ type: "text", text: "stuck" }] }, stream: { hang_after: 3 } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    expect(await failure(cut.key, controller.signal)).toMatchObject({ retryable: false });
  });
});
