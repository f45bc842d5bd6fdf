/**
 * The replay corpus: streams in each provider's documented wire format (test/fixtures/
 * provider-streams/, sources in its README), sent byte for byte by the mock model and cut at
 * awkward places (inside events, JSON strings and UTF-8 characters), through the whole loop. Each
 * case checks what was saved, what was streamed to a watcher, what was counted, and the request
 * that followed.
 */
import { describe, expect, it } from "vitest";
import type { ContentBlock } from "../../src/session-config/types";
import { newTestSession, waitForStatus } from "../support/agent-session";
import { checkCorpusCase, type CorpusCase, type Json, replay } from "../support/corpus";
import { anthropicMessage, anthropicSse } from "../support/provider-streams";
import anthropicText from "../fixtures/provider-streams/anthropic/text-pings.sse?raw";
import anthropicThinkingTool from "../fixtures/provider-streams/anthropic/thinking-tool-use.sse?raw";
import chatText from "../fixtures/provider-streams/chat/text-usage.sse?raw";
import anthropicPieces from "../fixtures/provider-streams/anthropic/tool-input-pieces.sse?raw";
import anthropicRedacted from "../fixtures/provider-streams/anthropic/redacted-thinking.sse?raw";
import anthropicCut from "../fixtures/provider-streams/anthropic/max-tokens-in-tool-input.sse?raw";
import anthropicRefusal from "../fixtures/provider-streams/anthropic/refusal.sse?raw";
import anthropicPause from "../fixtures/provider-streams/anthropic/pause-turn.sse?raw";
import anthropicError from "../fixtures/provider-streams/anthropic/error-mid-stream.sse?raw";
import anthropicWindow from "../fixtures/provider-streams/anthropic/context-window-exceeded.sse?raw";
import anthropicUnknown from "../fixtures/provider-streams/anthropic/unknown-stop-reason.sse?raw";
import chatParallel from "../fixtures/provider-streams/chat/parallel-tool-calls.sse?raw";
import chatCut from "../fixtures/provider-streams/chat/max-tokens-in-tool-arguments.sse?raw";
import chatRefusal from "../fixtures/provider-streams/chat/refusal.sse?raw";
import azureFilter from "../fixtures/provider-streams/chat/azure-content-filter.sse?raw";
import chatError from "../fixtures/provider-streams/chat/error-mid-stream.sse?raw";
import ollamaReasoning from "../fixtures/provider-streams/chat/ollama-reasoning.sse?raw";
import deepseekResource from "../fixtures/provider-streams/chat/deepseek-insufficient-resource.sse?raw";
import anthropicCompat from "../fixtures/provider-streams/chat/anthropic-compat-tool-call.sse?raw";
import deepseekReasoningTool from "../fixtures/provider-streams/chat/deepseek-reasoning-tool-call.sse?raw";

const GET_TIME = [{ type: "builtin" as const, name: "get_time" }];
const WEATHER = [
  { type: "client" as const, name: "get_weather", description: "The weather at a place.", input_schema: { type: "object" } },
];
const turnsOf = (body: Json) => body.messages as { role: string; content: Json[] | string | null; [field: string]: unknown }[];
const text = (t: string): ContentBlock => ({ type: "text", text: t });
const TOKYO = "It is 19:00 in Tokyo — 東京では午後7時です。";
const PAUSED_SEARCH: ContentBlock = {
  type: "server_tool_use",
  id: "srvtoolu_014hJH82Qum7Td6UV8gDXThB",
  name: "web_search",
  input: { query: "tokyo time" },
};
const PAUSED_RESULTS: ContentBlock = {
  type: "web_search_tool_result",
  tool_use_id: "srvtoolu_014hJH82Qum7Td6UV8gDXThB",
  content: [
    {
      type: "web_search_result",
      title: "Time in Tokyo",
      url: "https://example.com/tokyo",
      encrypted_content: "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5",
      page_age: null,
    },
  ],
};

const CASES: CorpusCase[] = [
  {
    name: "Anthropic: thinking with a signature, then a tool call, then the next request carries the thinking block unchanged",
    provider: "anthropic",
    calls: [anthropicThinkingTool, anthropicText],
    session: { tools: GET_TIME },
    expected: {
      status: "done",
      stop_reason: "end_turn",
      answers: [
        [
          {
            type: "thinking",
            thinking: "The user wants the time in Tokyo. I have a get_time tool; I should call it before answering — Tokyo is UTC+9.",
            signature:
              "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds3f7E3ZvcdBTtp6JRVi7hdMYVZkV9bFHvvHSi7K8WMvzjWQU3WaSs3ZfqrHoFZ7nZpoqEVlb3yd4I5D2vHvH2Go05XqpCw==",
          },
          text("I'll check the clock — 東京 first."),
          { type: "tool_use", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_time", input: {} },
        ],
        [text(TOKYO)],
      ],
      deltas: [
        {
          "0:reasoning": "The user wants the time in Tokyo. I have a get_time tool; I should call it before answering — Tokyo is UTC+9.",
          "1": "I'll check the clock — 東京 first.",
        },
        { "0": TOKYO },
      ],
      usage: { steps: 2, input_tokens: 612 + 25, output_tokens: 137 + 15 },
      requests: 2,
      next: (body) => {
        const turns = body.messages as { role: string; content: Json[] }[];
        expect(turns[1]).toEqual({
          role: "assistant",
          content: [
            {
              type: "thinking",
              thinking: "The user wants the time in Tokyo. I have a get_time tool; I should call it before answering — Tokyo is UTC+9.",
              signature:
                "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds3f7E3ZvcdBTtp6JRVi7hdMYVZkV9bFHvvHSi7K8WMvzjWQU3WaSs3ZfqrHoFZ7nZpoqEVlb3yd4I5D2vHvH2Go05XqpCw==",
            },
            { type: "text", text: "I'll check the clock — 東京 first." },
            { type: "tool_use", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_time", input: {} },
          ],
        });
        expect(turns[2]!.content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6" });
      },
    },
  },
  {
    name: "DeepSeek: reasoning_content with a tool call, then the next request carries reasoning_content on the assistant message",
    provider: "openai",
    calls: [deepseekReasoningTool, chatText],
    session: { tools: GET_TIME },
    expected: {
      status: "done",
      stop_reason: "end_turn",
      answers: [
        [
          { type: "thinking", thinking: "The user asks for the time in Tokyo; I should call get_time." },
          { type: "tool_use", id: "call_00_aJ3kRz8yMv1Qw2Xs", name: "get_time", input: {} },
        ],
        [text(TOKYO)],
      ],
      deltas: [{ "0:reasoning": "The user asks for the time in Tokyo; I should call get_time." }, { "0": TOKYO }],
      // DeepSeek counts its cache hits inside prompt_tokens: they are cache reads here.
      usage: { steps: 2, input_tokens: 215 - 128 + 48, cache_read_tokens: 128, output_tokens: 58 + 17, reasoning_tokens: 41 },
      requests: 2,
      next: (body) => {
        const turns = body.messages as Json[];
        expect(turns[1]).toEqual({
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_00_aJ3kRz8yMv1Qw2Xs", type: "function", function: { name: "get_time", arguments: "{}" } }],
          reasoning_content: "The user asks for the time in Tokyo; I should call get_time.",
        });
        expect(turns[2]).toMatchObject({ role: "tool", tool_call_id: "call_00_aJ3kRz8yMv1Qw2Xs" });
      },
    },
  },
  {
    name: "Anthropic: text with pings between its pieces",
    provider: "anthropic",
    calls: [anthropicText],
    expected: {
      status: "done",
      stop_reason: "end_turn",
      answers: [[text(TOKYO)]],
      deltas: [{ "0": TOKYO }],
      usage: { steps: 1, input_tokens: 25, output_tokens: 15 },
      requests: 1,
    },
  },
  {
    name: "Anthropic: a tool input in many small pieces, then the next request carries the input and its result",
    provider: "anthropic",
    calls: [anthropicPieces, anthropicText],
    session: { tools: WEATHER },
    outputs: { toolu_01T1x1fJ34qAmk2tNTrN7Up6: "59°F, fog" },
    expected: {
      status: "done",
      stop_reason: "end_turn",
      answers: [
        [
          text("Okay, let's check the weather for San Francisco, CA:"),
          {
            type: "tool_use",
            id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
            name: "get_weather",
            input: { location: "San Francisco, CA", unit: "fahrenheit" },
          },
        ],
        [text(TOKYO)],
      ],
      deltas: [{ "0": "Okay, let's check the weather for San Francisco, CA:" }, { "0": TOKYO }],
      usage: { steps: 2, input_tokens: 472 + 25, output_tokens: 89 + 15 },
      requests: 2,
      next: (body) => {
        const turns = turnsOf(body);
        expect(turns[1]!.content).toEqual([
          { type: "text", text: "Okay, let's check the weather for San Francisco, CA:" },
          {
            type: "tool_use",
            id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
            name: "get_weather",
            input: { location: "San Francisco, CA", unit: "fahrenheit" },
          },
        ]);
        expect(turns[2]!.content).toEqual([{ type: "tool_result", tool_use_id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", content: "59°F, fog" }]);
      },
    },
  },
  {
    name: "Anthropic: redacted thinking is kept and sent back as it came",
    provider: "anthropic",
    calls: [anthropicRedacted, anthropicText],
    followUp: "And in Osaka?",
    expected: {
      status: "done",
      stop_reason: "end_turn",
      answers: [
        [
          {
            type: "thinking",
            thinking: "Tokyo is UTC+9.",
            signature: "WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve/op91XWHOEBLLqIOMfFG/UvLEczmEsUjavL",
          },
          {
            type: "redacted_thinking",
            data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2pabbQZBH/kKlL",
          },
          text("It is 19:00 in Tokyo."),
        ],
        [text(TOKYO)],
      ],
      deltas: [{ "0:reasoning": "Tokyo is UTC+9.", "2": "It is 19:00 in Tokyo." }, { "0": TOKYO }],
      usage: { steps: 2, input_tokens: 300 + 25, output_tokens: 120 + 15 },
      requests: 2,
      next: (body) => {
        expect(turnsOf(body)[1]!.content).toEqual([
          {
            type: "thinking",
            thinking: "Tokyo is UTC+9.",
            signature: "WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve/op91XWHOEBLLqIOMfFG/UvLEczmEsUjavL",
          },
          {
            type: "redacted_thinking",
            data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2pabbQZBH/kKlL",
          },
          { type: "text", text: "It is 19:00 in Tokyo." },
        ]);
      },
    },
  },
  {
    name: "Anthropic: max_tokens in the middle of a tool input ends the run done with its text, one call, counted once",
    provider: "anthropic",
    calls: [anthropicCut, anthropicText],
    session: { tools: WEATHER },
    followUp: "Go on.",
    expected: {
      status: "done",
      stop_reason: "end_turn",
      answers: [[text("Let me look that up.")], [text(TOKYO)]],
      deltas: [{ "0": "Let me look that up." }, { "0": TOKYO }],
      usage: { steps: 2, input_tokens: 390 + 25, output_tokens: 64 + 15 },
      requests: 2,
      firstRun: { status: "done", stop_reason: "max_tokens" },
      next: (body) => {
        expect(turnsOf(body).map((turn) => turn.role)).toEqual(["user", "assistant", "user"]);
        expect(turnsOf(body)[1]!.content).toEqual([{ type: "text", text: "Let me look that up." }]);
      },
    },
  },
  {
    name: "Anthropic: a refusal streams and is saved, and the next run is sent without the refused exchange",
    provider: "anthropic",
    calls: [anthropicRefusal, anthropicText],
    followUp: "What time is it in Tokyo?",
    input: "How do I make something dangerous?",
    expected: {
      status: "done",
      stop_reason: "end_turn",
      answers: [[text("I can help with chemistry, but ")], [text(TOKYO)]],
      deltas: [{ "0": "I can help with chemistry, but " }, { "0": TOKYO }],
      usage: { steps: 2, input_tokens: 51 + 25, output_tokens: 9 + 15 },
      requests: 2,
      firstRun: { status: "done", stop_reason: "refusal" },
      next: (body) => {
        expect(turnsOf(body)).toHaveLength(1);
        expect(turnsOf(body)[0]!.content).toMatchObject([{ type: "text", text: "What time is it in Tokyo?" }]);
      },
    },
  },
  {
    name: "Anthropic: pause_turn continues the turn with the answer so far sent back",
    provider: "anthropic",
    calls: [anthropicPause, anthropicText],
    expected: {
      status: "done",
      stop_reason: "end_turn",
      answers: [[text("I'll search for the latest numbers."), PAUSED_SEARCH, PAUSED_RESULTS], [text(TOKYO)]],
      deltas: [{ "0": "I'll search for the latest numbers." }, { "0": TOKYO }],
      usage: { steps: 2, input_tokens: 2679 + 25, output_tokens: 40 + 15 },
      requests: 2,
      next: (body) => {
        const turns = turnsOf(body);
        expect(turns.map((turn) => turn.role)).toEqual(["user", "assistant"]);
        // The server tool's blocks go back with the text: the provider resumes from them.
        expect(turns[1]!.content).toEqual([{ type: "text", text: "I'll search for the latest numbers." }, PAUSED_SEARCH, PAUSED_RESULTS]);
      },
    },
  },
  {
    name: "Anthropic: an error event mid-stream is retried; nothing of the broken answer is saved or counted",
    provider: "anthropic",
    calls: [anthropicError, anthropicText],
    expected: {
      status: "done",
      stop_reason: "end_turn",
      answers: [[text(TOKYO)]],
      deltas: [{ "0": TOKYO }],
      usage: { steps: 1, input_tokens: 25, output_tokens: 15 },
      requests: 2,
      next: (body) => expect(turnsOf(body)).toHaveLength(1),
    },
  },
  {
    name: "Anthropic: model_context_window_exceeded ends the run with its own stop reason",
    provider: "anthropic",
    calls: [anthropicWindow],
    expected: {
      status: "done",
      stop_reason: "context_window_exceeded",
      answers: [[text("The summary of the first chapters is")]],
      deltas: [{ "0": "The summary of the first chapters is" }],
      usage: { steps: 1, input_tokens: 198_000, output_tokens: 1_990 },
      requests: 1,
    },
  },
  {
    name: "Anthropic: an unknown stop reason fails the run with a clear error, its tokens counted",
    provider: "anthropic",
    calls: [anthropicUnknown],
    expected: {
      status: "failed",
      stop_reason: "model_error",
      error: /does not know \("a_reason_from_the_future"\)/,
      answers: [],
      deltas: [],
      usage: { steps: 1, input_tokens: 25, output_tokens: 3 },
      requests: 1,
    },
  },
  {
    name: "Chat Completions: text, then the usage in a last chunk with no choices",
    provider: "openai",
    calls: [chatText],
    expected: {
      status: "done",
      stop_reason: "end_turn",
      answers: [[text(TOKYO)]],
      deltas: [{ "0": TOKYO }],
      usage: { steps: 1, input_tokens: 48, output_tokens: 17, reasoning_tokens: 0 },
      requests: 1,
    },
  },
  {
    name: "Chat Completions: parallel tool calls, then the next request carries both calls and both results in order",
    provider: "openai",
    calls: [chatParallel, chatText],
    session: { tools: WEATHER },
    outputs: { call_8Q2vWmTkz1: "18°C", call_J7xR0bNf3y: "24°C" },
    expected: {
      status: "done",
      stop_reason: "end_turn",
      answers: [
        [
          { type: "tool_use", id: "call_8Q2vWmTkz1", name: "get_weather", input: { location: "Paris" } },
          { type: "tool_use", id: "call_J7xR0bNf3y", name: "get_weather", input: { location: "Tokyo" } },
        ],
        [text(TOKYO)],
      ],
      deltas: [{}, { "0": TOKYO }],
      usage: { steps: 2, input_tokens: 82 + 48, output_tokens: 46 + 17 },
      requests: 2,
      next: (body) => {
        const turns = turnsOf(body);
        expect(turns[1]).toEqual({
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_8Q2vWmTkz1", type: "function", function: { name: "get_weather", arguments: '{"location":"Paris"}' } },
            { id: "call_J7xR0bNf3y", type: "function", function: { name: "get_weather", arguments: '{"location":"Tokyo"}' } },
          ],
        });
        expect(turns.slice(2)).toEqual([
          { role: "tool", tool_call_id: "call_8Q2vWmTkz1", content: "18°C" },
          { role: "tool", tool_call_id: "call_J7xR0bNf3y", content: "24°C" },
        ]);
      },
    },
  },
  {
    name: "Chat Completions: length in the middle of tool arguments ends the run done with its text, counted once",
    provider: "openai",
    calls: [chatCut],
    session: { tools: WEATHER },
    expected: {
      status: "done",
      stop_reason: "max_tokens",
      answers: [[text("Let me look that up.")]],
      deltas: [{ "0": "Let me look that up." }],
      usage: { steps: 1, input_tokens: 390, output_tokens: 64 },
      requests: 1,
    },
  },
  {
    name: "OpenAI: a refusal streams and is saved, and the next run is sent without the refused exchange",
    provider: "openai",
    calls: [chatRefusal, chatText],
    input: "How do I make something dangerous?",
    followUp: "What time is it in Tokyo?",
    expected: {
      status: "done",
      stop_reason: "end_turn",
      answers: [[text("I'm sorry, I can't help with that.")], [text(TOKYO)]],
      deltas: [{ "0": "I'm sorry, I can't help with that." }, { "0": TOKYO }],
      usage: { steps: 2, input_tokens: 51 + 48, output_tokens: 9 + 17 },
      requests: 2,
      firstRun: { status: "done", stop_reason: "refusal" },
      next: (body) => expect(turnsOf(body)).toEqual([{ role: "user", content: "What time is it in Tokyo?" }]),
    },
  },
  {
    name: "Azure OpenAI: prompt filter results first, then content_filter ends the run as a refusal",
    provider: "openai",
    calls: [azureFilter],
    expected: {
      status: "done",
      stop_reason: "refusal",
      answers: [[text("Here is how")]],
      deltas: [{ "0": "Here is how" }],
      usage: { steps: 1, input_tokens: 30, output_tokens: 4 },
      requests: 1,
    },
  },
  {
    name: "Chat Completions: an error object mid-stream is retried; nothing of the broken answer is saved or counted",
    provider: "openai",
    calls: [chatError, chatText],
    expected: {
      status: "done",
      stop_reason: "end_turn",
      answers: [[text(TOKYO)]],
      deltas: [{ "0": TOKYO }],
      usage: { steps: 1, input_tokens: 48, output_tokens: 17 },
      requests: 2,
    },
  },
  {
    name: "Ollama: reasoning in delta.reasoning is kept as a thinking block and streamed as reasoning",
    provider: "openai",
    calls: [ollamaReasoning],
    expected: {
      status: "done",
      stop_reason: "end_turn",
      answers: [[{ type: "thinking", thinking: "Okay, the user asks the time in Tokyo: UTC+9." }, text("It is 19:00 in Tokyo.")]],
      deltas: [{ "0:reasoning": "Okay, the user asks the time in Tokyo: UTC+9.", "1": "It is 19:00 in Tokyo." }],
      usage: { steps: 1, input_tokens: 40, output_tokens: 25 },
      requests: 1,
    },
  },
  {
    name: "DeepSeek: an unknown finish reason (insufficient_system_resource) fails the run with a clear error, its tokens counted",
    provider: "openai",
    calls: [deepseekResource],
    expected: {
      status: "failed",
      stop_reason: "model_error",
      error: /insufficient_system_resource/,
      answers: [],
      deltas: [],
      usage: { steps: 1, input_tokens: 30, output_tokens: 2 },
      requests: 1,
    },
  },
  {
    name: "Anthropic's OpenAI-compatible endpoint: text and a tool call, then the next request",
    provider: "openai",
    calls: [anthropicCompat, chatText],
    session: { tools: GET_TIME },
    expected: {
      status: "done",
      stop_reason: "end_turn",
      answers: [[text("Checking the clock."), { type: "tool_use", id: "toolu_01CompatCall", name: "get_time", input: {} }], [text(TOKYO)]],
      deltas: [{ "0": "Checking the clock." }, { "0": TOKYO }],
      usage: { steps: 2, input_tokens: 600 + 48, output_tokens: 40 + 17 },
      requests: 2,
      next: (body) => {
        const turns = turnsOf(body);
        expect(turns[1]).toEqual({
          role: "assistant",
          content: "Checking the clock.",
          tool_calls: [{ id: "toolu_01CompatCall", type: "function", function: { name: "get_time", arguments: "{}" } }],
        });
        expect(turns[2]).toMatchObject({ role: "tool", tool_call_id: "toolu_01CompatCall" });
      },
    },
  },
];

describe("the provider stream corpus", () => {
  it.each(CASES)("$name", checkCorpusCase);
});

describe("context windowing with reasoning", () => {
  it("sends a thinking block with its turn or drops the whole turn, never the block alone", async () => {
    const t = newTestSession();
    const thinkingThenCall = (n: number) =>
      anthropicSse(
        anthropicMessage({
          blocks: [
            ["content_block_start", { index: 0, content_block: { type: "thinking", thinking: "", signature: "" } }],
            ["content_block_delta", { index: 0, delta: { type: "thinking_delta", thinking: `Step ${n}: I need the time again.` } }],
            ["content_block_delta", { index: 0, delta: { type: "signature_delta", signature: `sig-${n}` } }],
            ["content_block_stop", { index: 0 }],
            ["content_block_start", { index: 1, content_block: { type: "tool_use", id: `toolu_step_${n}`, name: "get_time", input: {} } }],
            ["content_block_stop", { index: 1 }],
          ],
          stopReason: "tool_use",
        }),
      );
    await t.model.script({ raw: { body: thinkingThenCall(1) } }, { raw: { body: thinkingThenCall(2) } }, { raw: { body: anthropicText } });
    await replay(t, {
      name: "",
      provider: "anthropic",
      calls: [],
      session: { tools: GET_TIME, reasoning: { effort: "low" }, context: { strategy: "last_messages", last_messages: 2 } },
      expected: { status: "done", stop_reason: "end_turn", answers: [], deltas: [], usage: {}, requests: 3 },
    });
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done", stop_reason: "end_turn" });
    const third = (await t.model.requests())[2]!.body as Json;
    const turns = turnsOf(third);
    // The task, then the newest exchange whole: the second call's turn with its signed thinking, and its result.
    expect(turns.map((turn) => turn.role)).toEqual(["user", "assistant", "user"]);
    expect(turns[1]!.content).toEqual([
      { type: "thinking", thinking: "Step 2: I need the time again.", signature: "sig-2" },
      { type: "tool_use", id: "toolu_step_2", name: "get_time", input: {} },
    ]);
    expect(JSON.stringify(third)).not.toContain("Step 1");
    expect(third).toMatchObject({ thinking: { type: "enabled", budget_tokens: 1_024 } });
  });
});
