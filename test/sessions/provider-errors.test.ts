/**
 * Both providers map failures through one rule (model/provider-errors.ts): what a tenant reads is
 * the status and an identifier-shaped error type, never the provider's or the runtime's own text,
 * which goes to the platform log. Each case runs against both providers, so a provider that maps
 * on its own again fails here.
 */
import { describe, expect, it, vi } from "vitest";
import { MAX_ATTEMPTS } from "../../src/limits";
import { anthropicProvider } from "../../src/sessions/object/model/anthropic";
import { openAiProvider } from "../../src/sessions/object/model/openai";
import { ModelError, type ModelProvider, type ModelRequest } from "../../src/sessions/object/model/provider";
import { asModelError, errorTypeOf } from "../../src/sessions/object/model/provider-errors";
import { createAndStart, getSession, newTestSession, runState, skipBackoff, waitForStatus } from "../support/agent-session";

const INTERNAL = "connect ECONNREFUSED 10.1.2.3:443 (internal-llm-proxy.platform.lan)";
const ACCOUNT_TEXT = "Your credit balance is too low; organization org-platform-42";

const request: ModelRequest = {
  model: "m",
  system: null,
  messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
  tools: [],
  maxTokens: 10,
};

type Make = (fetchImpl: typeof fetch) => ModelProvider;
const PROVIDERS: { name: string; make: Make; prefix: string; streamError: (type: string) => string; contentType: string }[] = [
  {
    name: "Anthropic",
    prefix: "",
    make: (fetchImpl) => anthropicProvider({ baseUrl: "https://provider.test", apiKey: "k", fetchImpl }),
    contentType: "text/event-stream",
    streamError: (type) => `event: error\ndata: ${JSON.stringify({ type: "error", error: { type, message: ACCOUNT_TEXT } })}\n\n`,
  },
  {
    name: "OpenAI-compatible",
    prefix: "openai:",
    make: (fetchImpl) => openAiProvider({ baseUrl: "https://provider.test", apiKey: "k", fetchImpl }),
    contentType: "text/event-stream",
    streamError: (type) => `data: ${JSON.stringify({ error: { type, message: ACCOUNT_TEXT } })}\n\n`,
  },
];

async function failure(provider: ModelProvider): Promise<{ error: ModelError; logged: string }> {
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  try {
    const error = await provider.complete(request, new AbortController().signal).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ModelError);
    return { error: error as ModelError, logged: warn.mock.calls.map(([line]) => String(line)).join("\n") };
  } finally {
    warn.mockRestore();
  }
}

describe.each(PROVIDERS)("the $name provider's failures", ({ make, streamError, contentType }) => {
  it("keep a network error's text out of the error and in the log", async () => {
    const { error, logged } = await failure(
      make(async () => {
        throw new TypeError(INTERNAL);
      }),
    );
    expect(error).toMatchObject({ message: "network error calling the model", retryable: true });
    expect(logged).toContain("internal-llm-proxy");
  });

  it("name the status and error type of an HTTP error, never its text", async () => {
    const body = JSON.stringify({ error: { type: "invalid_request_error", message: ACCOUNT_TEXT } });
    const { error, logged } = await failure(
      make(async () => new Response(body, { status: 400, headers: { "content-type": "application/json" } })),
    );
    expect(error).toMatchObject({ message: "model provider answered 400 (invalid_request_error)", retryable: false, status: 400 });
    expect(logged).toContain("credit balance");
  });

  it("say only the status when the error type is not an identifier", async () => {
    const body = JSON.stringify({ error: { type: `see ${INTERNAL}`, message: ACCOUNT_TEXT } });
    const { error } = await failure(make(async () => new Response(body, { status: 503 })));
    expect(error).toMatchObject({ message: "model provider answered 503", retryable: true });
  });

  it("keep a stream's error event text, and a type that is not an identifier, out of the error", async () => {
    const { error } = await failure(
      make(async () => new Response(streamError(`overloaded ${INTERNAL}`), { status: 200, headers: { "content-type": contentType } })),
    );
    expect(error.message).not.toContain("internal-llm-proxy");
    expect(error.message).not.toContain("credit balance");
    expect(error.message).toMatch(/\berror\b/);
  });
});

describe("the one mapping", () => {
  it.each([
    [{ type: "overloaded_error" }, "overloaded_error"],
    [{ code: "rate_limit_exceeded" }, "rate_limit_exceeded"],
    [{ type: "Not An Identifier: see https://x", code: "server_error" }, "server_error"],
    [{ type: 42 }, null],
    ["overloaded_error", null],
    [null, null],
  ])("reads the error type of %j as %s", (error, type) => {
    expect(errorTypeOf(error)).toBe(type);
  });

  it("turns an unexpected fault into a generic model error, logging its text", () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const error = asModelError(new RangeError(INTERNAL));
      expect(error).toMatchObject({ message: "model call failed", retryable: true });
      expect(String(logged.mock.calls[0]?.[0])).toContain("internal-llm-proxy");
      const own = new ModelError("the model call timed out", true);
      expect(asModelError(own)).toBe(own);
    } finally {
      logged.mockRestore();
    }
  });
});

describe.each(PROVIDERS)("a session on the $name provider whose model cannot be reached", ({ prefix }) => {
  it("fails with an error that names no host, address or runtime text", async () => {
    const t = newTestSession();
    await t.model.script({ reset: true, repeat: MAX_ATTEMPTS });
    await createAndStart(t, "hello", { model: `${prefix}${t.model.key}` });
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      const deadline = Date.now() + 15_000;
      while ((await runState(t)).attempts < attempt) {
        if (Date.now() > deadline) throw new Error(`attempt ${attempt} was never recorded`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await skipBackoff(t);
    }
    const failed = await waitForStatus(t, ["failed", "done"]);
    expect(failed).toMatchObject({ status: "failed", stop_reason: "model_error" });
    expect(failed.error).toBe(`gave up after ${MAX_ATTEMPTS} attempts: network error calling the model`);
    expect(JSON.stringify(await getSession(t))).not.toMatch(/ECONN|127\.0\.0\.1|localhost|reset/i);
  });
});
