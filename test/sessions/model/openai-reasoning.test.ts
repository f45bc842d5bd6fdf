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

describe("what each server gets back of its reasoning", () => {
  const thinking = [{ type: "thinking" as const, thinking: "I should call get_time." }];
  const withDetails = [{ ...thinking[0]!, reasoning_details: [{ type: "reasoning.encrypted", data: "x" }] }];

  it("follows the catalog by model family", () => {
    expect(reasoningReplayFor("deepseek-reasoner")).toBe("reasoning_content");
    expect(reasoningReplayFor("glm-4.6")).toBe("reasoning_content");
    expect(reasoningReplayFor("magistral-medium-2507")).toBe("thinking_chunks");
    expect(reasoningReplayFor("gpt-oss:20b")).toBe("none");
    expect(reasoningReplayFor("openai/gpt-oss-120b")).toBe("none");
    expect(reasoningReplayFor("llama3")).toBe("reasoning_content");
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
    expect(toServerRequest(request("gpt-oss:20b", history), false).messages[3]).toEqual({ role: "assistant", content: "6" });
  });
});
