/**
 * The requests the loop sends after a recorded answer, checked against the official SDKs'
 * request types: each is built here with the providers' own wire functions from the session's
 * saved history and typed as `@anthropic-ai/sdk`'s or `openai`'s streaming create params (so a
 * wire shape the SDKs would not accept fails `npm run typecheck`), then compared with the body
 * the loop actually sent during the replay.
 */
import type { MessageCreateParamsStreaming } from "@anthropic-ai/sdk/resources/messages";
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { BUILTIN_DEFAULT_LIMITS } from "../../src/limits";
import { withImageData } from "../../src/sessions/object/images/resolve";
import { toWire } from "../../src/sessions/object/model/anthropic";
import { toChatRequest } from "../../src/sessions/object/model/openai-wire";
import type { ModelRequest } from "../../src/sessions/object/model/provider";
import { buildToolbox, toolDefinitions } from "../../src/sessions/object/tools/registry";
import type { Message, ReasoningSettings, ToolSpec } from "../../src/session-config/types";
import { messages, newTestSession, type TestSession } from "../support/agent-session";
import { replay } from "../support/corpus";
import anthropicText from "../fixtures/provider-streams/anthropic/text-pings.sse?raw";
import anthropicThinkingTool from "../fixtures/provider-streams/anthropic/thinking-tool-use.sse?raw";
import chatText from "../fixtures/provider-streams/chat/text-usage.sse?raw";
import chatParallel from "../fixtures/provider-streams/chat/parallel-tool-calls.sse?raw";
import deepseekReasoningTool from "../fixtures/provider-streams/chat/deepseek-reasoning-tool-call.sse?raw";

const GET_TIME: ToolSpec[] = [{ type: "builtin", name: "get_time" }];
const WEATHER: ToolSpec[] = [
  { type: "client", name: "get_weather", description: "The weather at a place.", input_schema: { type: "object" } },
];

/** The second call's request as the model step builds it: the task (cached), the tool call, its results. */
function secondRequest(model: string, history: Message[], tools: ToolSpec[], reasoning: ReasoningSettings | null): ModelRequest {
  const [task, answer, results] = history;
  return {
    model,
    system: null,
    messages: withImageData(
      [
        { role: "user", content: task!.content, cache: true },
        { role: "assistant", content: answer!.content },
        { role: "user", content: results!.content },
      ],
      () => null,
    ),
    tools: toolDefinitions(buildToolbox(tools)),
    maxTokens: BUILTIN_DEFAULT_LIMITS.max_tokens_per_call,
    ...(reasoning ? { reasoning } : {}),
  };
}

async function sentAfterReplay(
  t: TestSession,
  provider: "anthropic" | "openai",
  calls: string[],
  tools: ToolSpec[],
  reasoning: ReasoningSettings | null,
  outputs?: Record<string, string>,
) {
  await replay(t, {
    name: "",
    provider,
    calls,
    session: { tools, reasoning },
    ...(outputs ? { outputs } : {}),
    expected: { status: "done", stop_reason: "end_turn", answers: [], deltas: [], usage: {}, requests: 2 },
  });
  const requests = await t.model.requests();
  expect(requests).toHaveLength(2);
  return { sent: requests[1]!.body, history: await messages(t) };
}

describe("the next request, typed by the providers' SDKs", () => {
  it("Anthropic, thinking on, after a signed thinking block and a tool call: a MessageCreateParamsStreaming, as sent", async () => {
    const t = newTestSession();
    const reasoning = { effort: "low" as const };
    const { sent, history } = await sentAfterReplay(t, "anthropic", [anthropicThinkingTool, anthropicText], GET_TIME, reasoning);
    const typed: MessageCreateParamsStreaming = { ...toWire(secondRequest(t.model.key, history, GET_TIME, reasoning)), stream: true };
    expect(typed.thinking).toEqual({ type: "enabled", budget_tokens: 1_024 });
    expect(sent).toEqual(typed);
  });

  it("DeepSeek, after reasoning_content and a tool call: a ChatCompletionCreateParamsStreaming, as sent", async () => {
    const t = newTestSession();
    const { sent, history } = await sentAfterReplay(t, "openai", [deepseekReasoningTool, chatText], GET_TIME, null);
    const typed: ChatCompletionCreateParamsStreaming = {
      ...toChatRequest(secondRequest(t.model.key, history, GET_TIME, null), true),
      stream: true,
    };
    expect(sent).toEqual(typed);
  });

  it("OpenAI, reasoning effort on, after parallel tool calls: a ChatCompletionCreateParamsStreaming, as sent", async () => {
    const t = newTestSession();
    const reasoning = { effort: "medium" as const };
    const outputs = { call_8Q2vWmTkz1: "18°C", call_J7xR0bNf3y: "24°C" };
    const { sent, history } = await sentAfterReplay(t, "openai", [chatParallel, chatText], WEATHER, reasoning, outputs);
    const typed: ChatCompletionCreateParamsStreaming = {
      ...toChatRequest(secondRequest(t.model.key, history, WEATHER, reasoning), true),
      stream: true,
    };
    expect(typed.reasoning_effort).toBe("medium");
    expect(sent).toEqual(typed);
  });
});
