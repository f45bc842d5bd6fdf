/**
 * The reasoning formats of OpenAI-compatible servers in a whole (not streamed) answer, a legacy
 * `function_call`, OpenRouter's `reasoning_details` joined as received, and what each server
 * family gets back of its reasoning (the catalog's `reasoningReplayFor`).
 */
import { describe, expect, it } from "vitest";
import { reasoningReplayFor } from "../../../src/models/catalog";
import { openAiProvider } from "../../../src/sessions/object/model/openai";
import { ReasoningDetails, reasoningFields } from "../../../src/sessions/object/model/openai-reasoning";
import { ChatStream, readChatStream } from "../../../src/sessions/object/model/openai-stream";
import { toMistralMessages, toServerRequest } from "../../../src/sessions/object/model/openai-wire";
import type { ModelRequest } from "../../../src/sessions/object/model/provider";
import { mockModel, mockUrl, uniqueKey } from "../../support/mock-client";
import mistralWhole from "../../fixtures/provider-streams/chat/mistral-thinking-whole.json?raw";

const signal = () => new AbortController().signal;
const provider = () => openAiProvider({ baseUrl: mockUrl(), apiKey: "k" });
const request = (model: string, messages: ModelRequest["messages"] = [{ role: "user", content: [{ type: "text", text: "hi" }] }]) => ({
  model,
  system: null,
  messages,
  tools: [],
  maxTokens: 100,
});

describe("a whole Chat Completions answer", () => {
  it("reads Mistral's content array as a thinking block and a text block", async () => {
    const model = mockModel(uniqueKey("magistral-medium"));
    await model.script({ raw: { body: mistralWhole, content_type: "application/json" } });
    const response = await provider().complete(request(model.key), signal());
    expect(response.content).toEqual([
      { type: "thinking", thinking: "The user is asking for 2+2. This is basic arithmetic. 2+2=4." },
      { type: "text", text: "2 + 2 = 4" },
    ]);
    expect(response.stopReason).toBe("end_turn");
  });

  it("reads a legacy function_call as a tool call with an id of its own", async () => {
    const model = mockModel(uniqueKey("legacy"));
    const body = {
      id: "chatcmpl-123",
      object: "chat.completion",
      model: "gpt-3.5-turbo-0613",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: null, function_call: { name: "get_time", arguments: '{"timezone":"Asia/Tokyo"}' } },
          finish_reason: "function_call",
        },
      ],
      usage: { prompt_tokens: 82, completion_tokens: 18, total_tokens: 100 },
    };
    await model.script({ raw: { body: JSON.stringify(body), content_type: "application/json" } });
    const response = await provider().complete(request(model.key), signal());
    expect(response.stopReason).toBe("tool_use");
    expect(response.content).toEqual([
      { type: "tool_use", id: expect.stringMatching(/^call_[0-9a-f]{32}$/), name: "get_time", input: { timezone: "Asia/Tokyo" } },
    ]);
  });
});

describe("a Chat Completions stream's failures", () => {
  it("an `event: error` fails the answer retryably, whatever its body", async () => {
    const body = new Response('data: {"choices":[{"index":0,"delta":{"content":"Hal"}}]}\n\nevent: error\ndata: Internal Server Error\n\n')
      .body!;
    await expect(readChatStream(body, new ChatStream())).rejects.toMatchObject({ retryable: true, message: /ended with an error/ });
  });
});

describe("OpenRouter's reasoning_details", () => {
  it("joins the pieces of an item by index, keeps the last signature, and keeps items without an index as they came", () => {
    const details = new ReasoningDetails();
    details.add([{ type: "reasoning.text", text: "Let me ", format: "anthropic-claude-v1", index: 0 }]);
    details.add([{ type: "reasoning.text", text: "think.", signature: null, index: 0 }]);
    details.add([{ type: "reasoning.text", text: "", signature: "sig-1", index: 0 }]);
    details.add([{ type: "reasoning.encrypted", data: "abc" }]);
    details.add("not a list");
    expect(details.items).toEqual([
      { type: "reasoning.text", text: "Let me think.", format: "anthropic-claude-v1", signature: "sig-1", index: 0 },
      { type: "reasoning.encrypted", data: "abc" },
    ]);
    expect(details.text()).toBe("Let me think.");
  });
});

describe("a stream's reasoning_details and calls", () => {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] });

  it("never joins two encrypted items that share an index", () => {
    const details = new ReasoningDetails();
    details.add([{ type: "reasoning.encrypted", data: "SIG_A", id: "a", index: 0 }]);
    details.add([{ type: "reasoning.encrypted", data: "SIG_B", id: "b", index: 0 }]);
    expect(details.items).toEqual([
      { type: "reasoning.encrypted", data: "SIG_A", id: "a", index: 0 },
      { type: "reasoning.encrypted", data: "SIG_B", id: "b", index: 0 },
    ]);
  });

  it("streams text after encrypted-only details at the index the text is saved at", () => {
    const deltas: [number, string][] = [];
    const stream = new ChatStream({ onDelta: (index, text) => deltas.push([index, text]) });
    stream.add(chunk({ reasoning_details: [{ type: "reasoning.encrypted", data: "gAAA", id: "rs_1", index: 0 }] }));
    stream.add(chunk({ content: "Hello there" }));
    stream.add(chunk({}, "stop"));
    const content = stream.result(() => "call_x").content;
    expect(deltas).toEqual([[1, "Hello there"]]);
    expect(content[1]).toEqual({ type: "text", text: "Hello there" });
    expect(content[0]).toMatchObject({
      type: "thinking",
      thinking: "",
      reasoning_details: [{ type: "reasoning.encrypted", data: "gAAA" }],
    });
  });

  it("ignores an empty legacy function_call stub beside real tool_calls (hy3-preview's last chunk)", () => {
    const stream = new ChatStream();
    stream.add(chunk({ tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "Bash", arguments: "" } }] }));
    stream.add(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"command":"ls"}' } }] }));
    stream.add(chunk({ function_call: { name: "", arguments: "" } }, "tool_calls"));
    expect(stream.result(() => "call_new").content).toEqual([{ type: "tool_use", id: "call_a", name: "Bash", input: { command: "ls" } }]);
  });

  it("reads a whole answer's function_call only when it brought no tool_calls", async () => {
    const model = mockModel(uniqueKey("mirror"));
    const call = { name: "get_time", arguments: "{}" };
    const message = {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_a", type: "function", function: call }],
      function_call: call,
    };
    const body = { choices: [{ index: 0, message, finish_reason: "tool_calls" }], usage: { prompt_tokens: 1, completion_tokens: 1 } };
    await model.script({ raw: { body: JSON.stringify(body), content_type: "application/json" } });
    const response = await provider().complete(request(model.key), signal());
    expect(response.content).toEqual([{ type: "tool_use", id: "call_a", name: "get_time", input: {} }]);
  });
});

describe("what each server gets back of its reasoning", () => {
  const thinking = [{ type: "thinking" as const, thinking: "I should call get_time." }];
  const withDetails = [{ ...thinking[0]!, reasoning_details: [{ type: "reasoning.encrypted", data: "x" }] }];

  it("follows the server first, then the model family", () => {
    expect(reasoningReplayFor("https://api.deepseek.com", "deepseek-reasoner")).toBe("reasoning_content_always");
    expect(reasoningReplayFor("http://localhost:8000/v1", "glm-4.6")).toBe("reasoning_content");
    expect(reasoningReplayFor("https://api.mistral.ai/v1", "magistral-medium-2507")).toBe("thinking_chunks");
    expect(reasoningReplayFor("http://localhost:11434", "gpt-oss:20b")).toBe("none");
    expect(reasoningReplayFor("http://localhost:8000", "llama3")).toBe("reasoning_content");
    // The same names on other servers: Groq refuses reasoning_content; OpenRouter wants its details, Mistral's models too.
    expect(reasoningReplayFor("https://api.groq.com/openai/v1", "qwen/qwen3-32b")).toBe("none");
    expect(reasoningReplayFor("https://api.groq.com/openai/v1", "openai/gpt-oss-120b")).toBe("reasoning");
    expect(reasoningReplayFor("https://gateway.ai.cloudflare.com/v1/acct/gw/groq", "deepseek-r1-distill-llama-70b")).toBe("none");
    expect(reasoningReplayFor("https://openrouter.ai/api/v1", "mistralai/magistral-medium-2506")).toBe("reasoning_details");
    expect(reasoningReplayFor("http://localhost:8000/v1", "mistralai/Magistral-Small-2506")).toBe("reasoning_content");
  });

  it("sends Groq no reasoning_content after a tool call, so its next request is not refused", async () => {
    const model = mockModel(uniqueKey("qwen3-32b"));
    await model.script({ reply: { content: [{ type: "text", text: "It is 19:00." }] } });
    const history: ModelRequest["messages"] = [
      { role: "user", content: [{ type: "text", text: "Time in Tokyo?" }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "I should call get_time." },
          { type: "tool_use", id: "call_1", name: "get_time", input: {} },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "19:00" }] },
    ];
    const groq = openAiProvider({ baseUrl: `${mockUrl()}/groq/v1`, apiKey: "k" });
    const response = await groq.complete(request(model.key, history), signal());
    expect(response.content).toEqual([{ type: "text", text: "It is 19:00." }]);
    const sent = (await model.requests())[0]!.body as { messages: Record<string, unknown>[] };
    expect(sent.messages[1]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_1", type: "function", function: { name: "get_time", arguments: "{}" } }],
    });
  });

  it("keeps OpenRouter's details for a Mistral model, gives gpt-oss on Groq `reasoning`, and DeepSeek an empty reasoning_content on a tool turn without reasoning", () => {
    const turn = (content: ModelRequest["messages"][number]["content"]): ModelRequest["messages"] => [
      { role: "user", content: [{ type: "text", text: "Time?" }] },
      { role: "assistant", content },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "19:00" }] },
    ];
    const call = { type: "tool_use" as const, id: "call_1", name: "get_time", input: {} };
    const viaOpenRouter = toServerRequest(
      request("mistralai/magistral-medium-2506", turn([...withDetails, call])),
      false,
      "https://openrouter.ai/api/v1",
    );
    expect(viaOpenRouter.messages[1]).toMatchObject({ content: null, reasoning_details: [{ type: "reasoning.encrypted", data: "x" }] });
    const groqGptOss = toServerRequest(request("openai/gpt-oss-20b", turn([thinking[0]!, call])), false, "https://api.groq.com/openai/v1");
    expect(groqGptOss.messages[1]).toMatchObject({ reasoning: "I should call get_time." });
    expect(groqGptOss.messages[1]).not.toHaveProperty("reasoning_content");
    const deepseek = toServerRequest(request("deepseek-chat", turn([call])), false, "https://api.deepseek.com");
    expect(deepseek.messages[1]).toMatchObject({ reasoning_content: "" });
  });

  it("sends reasoning_content only with tool calls, reasoning_details as received, nothing to gpt-oss", () => {
    expect(reasoningFields(thinking, true, "reasoning_content")).toEqual({ reasoning_content: "I should call get_time." });
    expect(reasoningFields(thinking, false, "reasoning_content")).toEqual({});
    expect(reasoningFields(withDetails, true, "reasoning_content")).toEqual({
      reasoning_details: [{ type: "reasoning.encrypted", data: "x" }],
    });
    expect(reasoningFields(withDetails, true, "none")).toEqual({});
  });

  it("gives a Mistral model every assistant turn with reasoning as chunks, the turns without it as text", () => {
    const history: ModelRequest["messages"] = [
      { role: "user", content: [{ type: "text", text: "2+2?" }] },
      { role: "assistant", content: [{ type: "text", text: "4" }] },
      { role: "user", content: [{ type: "text", text: "And 3+3?" }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Easy." },
          { type: "text", text: "6" },
        ],
      },
      { role: "user", content: [{ type: "text", text: "Thanks" }] },
    ];
    expect(toMistralMessages(request("magistral-small", history)).filter((m) => m.role === "assistant")).toEqual([
      { role: "assistant", content: "4" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: [{ type: "text", text: "Easy." }], closed: true },
          { type: "text", text: "6" },
        ],
      },
    ]);
    expect(toServerRequest(request("gpt-oss:20b", history), false, "http://localhost:11434").messages[3]).toEqual({
      role: "assistant",
      content: "6",
    });
  });
});
