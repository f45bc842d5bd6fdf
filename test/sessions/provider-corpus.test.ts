/**
 * The replay corpus: streams in each provider's documented wire format (test/fixtures/
 * provider-streams/, sources in its README), sent byte for byte by the mock model and cut at
 * awkward places (inside events, JSON strings and UTF-8 characters), through the whole loop. Each
 * case checks what was saved, what was streamed to a watcher, what was counted, and the request
 * that followed.
 */
import { describe, expect, it } from "vitest";
import type { ContentBlock, SessionInit, StopReason, Usage } from "../../src/sessions/types";
import { getSession, messages, newTestSession, sessionInit, type TestSession, unwrap, waitForStatus } from "../support/agent-session";
import { openSse } from "../support/agent-stream";
import type { Frame } from "../support/event-client";
import anthropicText from "../fixtures/provider-streams/anthropic/text-pings.sse?raw";
import anthropicThinkingTool from "../fixtures/provider-streams/anthropic/thinking-tool-use.sse?raw";
import chatText from "../fixtures/provider-streams/chat/text-usage.sse?raw";
import deepseekReasoningTool from "../fixtures/provider-streams/chat/deepseek-reasoning-tool-call.sse?raw";

type Json = Record<string, unknown>;

interface CorpusCase {
  name: string;
  provider: "anthropic" | "openai";
  /** The streams the model calls get, in order. */
  calls: string[];
  session?: Partial<Omit<SessionInit, "limits">>;
  input?: string;
  expected: {
    status: "done" | "failed";
    stop_reason: StopReason;
    error?: RegExp;
    /** The saved assistant messages, in order. */
    answers: ContentBlock[][];
    /**
     * What a watcher saw streamed before each saved answer: text per block, keyed by its index
     * (`"1"`), or `"0:reasoning"` for reasoning.
     */
    deltas: Record<string, string>[];
    usage: Partial<Usage>;
    requests: number;
    /** Checks on the body of the request that followed the first answer. */
    next?: (body: Json) => void;
  };
}

const GET_TIME = [{ type: "builtin" as const, name: "get_time" }];
const text = (t: string): ContentBlock => ({ type: "text", text: t });
const TOKYO = "It is 19:00 in Tokyo — 東京では午後7時です。";

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
            signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds3f7E3ZvcdBTtp6JRVi7hdMYVZkV9bFHvvHSi7K8WMvzjWQU3WaSs3ZfqrHoFZ7nZpoqEVlb3yd4I5D2vHvH2Go05XqpCw==",
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
              signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds3f7E3ZvcdBTtp6JRVi7hdMYVZkV9bFHvvHSi7K8WMvzjWQU3WaSs3ZfqrHoFZ7nZpoqEVlb3yd4I5D2vHvH2Go05XqpCw==",
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
];

/**
 * Where a recorded body is cut: every 11 bytes, one byte into every character of more than one
 * byte, and one byte before every blank line that ends an event.
 */
export function awkwardSplits(body: string): number[] {
  const bytes = new TextEncoder().encode(body);
  const cuts = new Set<number>();
  for (let at = 11; at < bytes.length; at += 11) cuts.add(at);
  for (let at = 0; at < bytes.length; at++) {
    if (bytes[at]! >= 0xc0) cuts.add(at + 1);
    if (bytes[at] === 0x0a && bytes[at + 1] === 0x0a) cuts.add(at);
  }
  return [...cuts].filter((at) => at > 0 && at < bytes.length).sort((a, b) => a - b);
}

/** The streamed text before each saved answer: per block key, joined by offset. */
function deltasPerAnswer(frames: Frame[]): Record<string, string>[] {
  const answers: Record<string, string>[] = [];
  let current: Record<string, string> = {};
  for (const frame of frames) {
    if (frame.type === "message" && (frame.data as { role: string }).role === "assistant") {
      answers.push(current);
      current = {};
    }
    if (frame.type !== "delta") continue;
    const { index, text: piece, offset, kind } = frame.data as { index: number; text: string; offset: number; kind?: string };
    const key = kind ? `${index}:${kind}` : String(index);
    current[key] = (current[key] ?? "").slice(0, offset) + piece;
  }
  return answers;
}

async function replay(t: TestSession, testCase: CorpusCase) {
  await t.model.script(...testCase.calls.map((body) => ({ raw: { body, split_at: awkwardSplits(body), piece_delay_ms: 1 } })));
  const model = testCase.provider === "openai" ? `openai:${t.model.key}` : t.model.key;
  unwrap(await t.stub.create(sessionInit(t, { ...testCase.session, model }), null));
  const watch = await openSse(t);
  await watch.untilType("snapshot");
  unwrap(await t.stub.start(testCase.input ?? "What time is it in Tokyo?"));
  await watch.untilClosed();
  return watch;
}

describe("the provider stream corpus", () => {
  it.each(CASES)("$name", async (testCase) => {
    const t = newTestSession();
    const watch = await replay(t, testCase);
    const { expected } = testCase;
    const session = await waitForStatus(t, ["done", "failed"]);
    expect(session).toMatchObject({ status: expected.status, stop_reason: expected.stop_reason });
    if (expected.error) expect(session.error).toMatch(expected.error);
    else expect(session.error).toBeNull();
    const saved = (await messages(t)).filter((m) => m.role === "assistant").map((m) => m.content);
    expect(saved).toEqual(expected.answers);
    expect(deltasPerAnswer(watch.frames)).toEqual(expected.deltas);
    expect((await getSession(t)).usage).toMatchObject(expected.usage);
    const requests = await t.model.requests();
    expect(requests).toHaveLength(expected.requests);
    if (expected.next) expected.next(requests[1]!.body as Json);
  });
});
