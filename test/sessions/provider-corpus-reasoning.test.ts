/**
 * The replay corpus, round two for OpenAI-compatible servers (sources in
 * test/fixtures/provider-streams/README.md; the Mistral streams are recorded, the OpenRouter,
 * Groq, vLLM and legacy ones composed from documented shapes, and labelled so there): every reasoning format (Mistral's thinking chunks,
 * OpenRouter's reasoning_details, gpt-oss's `reasoning`), a legacy `function_call`, and a failed
 * attempt's draft dropped from the live stream (`delta_reset`) before the retry writes. Each
 * stream is sent byte for byte, cut at awkward places, through the whole loop.
 */
import { describe, expect, it } from "vitest";
import type { ContentBlock } from "../../src/session-config/types";
import { messages, newTestSession } from "../support/agent-session";
import { checkCorpusCase, type CorpusCase, type Json, replay } from "../support/corpus";
import chatText from "../fixtures/provider-streams/chat/text-usage.sse?raw";
import mistralThinking from "../fixtures/provider-streams/chat/mistral-thinking-chunks.sse?raw";
import openRouterDetails from "../fixtures/provider-streams/chat/openrouter-reasoning-details-tool-call.sse?raw";
import groqError from "../fixtures/provider-streams/chat/groq-gpt-oss-error-mid-stream.sse?raw";
import groqReasoning from "../fixtures/provider-streams/chat/groq-gpt-oss-reasoning.sse?raw";
import vllmCut from "../fixtures/provider-streams/chat/vllm-no-finish-reason.sse?raw";
import legacyCall from "../fixtures/provider-streams/chat/legacy-function-call.sse?raw";

const GET_TIME = [{ type: "builtin" as const, name: "get_time" }];
const turnsOf = (body: Json) => body.messages as { role: string; content: Json[] | string | null; [field: string]: unknown }[];
const text = (t: string): ContentBlock => ({ type: "text", text: t });
const TOKYO = "It is 19:00 in Tokyo — 東京では午後7時です。";
const MISTRAL_THOUGHT = "The user is asking for 2+2. This is basic arithmetic. 2+2=4.";
const SUMMARY = "**Checking the clock**\n\nThe user wants the time in Tokyo; I'll call get_time.";
const DETAILS = [
  // Summary pieces stay as they came, as OpenRouter's own SDK keeps them: only `reasoning.text` pieces are joined.
  {
    type: "reasoning.summary",
    summary: "**Checking the clock**\n\nThe user wants the time in Tokyo;",
    format: "openai-responses-v1",
    index: 0,
  },
  { type: "reasoning.summary", summary: " I'll call get_time.", format: "openai-responses-v1", index: 0 },
  {
    type: "reasoning.encrypted",
    data: "gAAAAABpOr3QeJ0c1kWm7Hq9Zx2Vt5Lb8Ns4Pd6Rf1Gy3Uj0Ki7Mo2Aw9Ec5Xr8Tv1Bn4Qs6Dl3Fh0Jp",
    id: "rs_0c4f7e1d2a9b3c5e016939bd7c4e8881a0b6f2d4c7e9a1b3d5",
    format: "openai-responses-v1",
    index: 1,
  },
];

const CASES: CorpusCase[] = [
  {
    name: "Mistral: thinking chunks in content arrays are kept as a thinking block, streamed as reasoning, and sent back as chunks",
    provider: "openai",
    modelPrefix: "magistral-medium",
    calls: [mistralThinking, chatText],
    followUp: "And the time in Tokyo?",
    expected: {
      status: "done",
      stop_reason: "end_turn",
      answers: [[{ type: "thinking", thinking: MISTRAL_THOUGHT }, text("2 + 2 = 4")], [text(TOKYO)]],
      deltas: [{ "0:reasoning": MISTRAL_THOUGHT, "1": "2 + 2 = 4" }, { "0": TOKYO }],
      usage: { steps: 2, input_tokens: 10 + 48, output_tokens: 46 + 17 },
      requests: 2,
      firstRun: { status: "done", stop_reason: "end_turn" },
      next: (body) => {
        expect(turnsOf(body)[1]).toEqual({
          role: "assistant",
          content: [
            { type: "thinking", thinking: [{ type: "text", text: MISTRAL_THOUGHT }], closed: true },
            { type: "text", text: "2 + 2 = 4" },
          ],
        });
      },
    },
  },
  {
    name: "OpenRouter: reasoning_details (summary and encrypted) are kept as received and sent back with the tool call",
    provider: "openai",
    calls: [openRouterDetails, chatText],
    session: { tools: GET_TIME },
    expected: {
      status: "done",
      stop_reason: "end_turn",
      answers: [
        [
          { type: "thinking", thinking: SUMMARY, reasoning_details: DETAILS },
          { type: "tool_use", id: "call_Kd8sPq2WmX4vRt7Ny1Lz", name: "get_time", input: {} },
        ],
        [text(TOKYO)],
      ],
      deltas: [{ "0:reasoning": SUMMARY }, { "0": TOKYO }],
      usage: { steps: 2, input_tokens: 120 + 48, output_tokens: 84 + 17, reasoning_tokens: 64 },
      requests: 2,
      next: (body) => {
        const turns = turnsOf(body);
        expect(turns[1]).toEqual({
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_Kd8sPq2WmX4vRt7Ny1Lz", type: "function", function: { name: "get_time", arguments: "{}" } }],
          reasoning_details: DETAILS,
        });
        expect(turns[2]).toMatchObject({ role: "tool", tool_call_id: "call_Kd8sPq2WmX4vRt7Ny1Lz" });
      },
    },
  },
  {
    name: "Groq gpt-oss: reasoning in delta.reasoning, an `event: error` mid-stream, the retry's answer alone saved and shown",
    provider: "openai",
    modelPrefix: "gpt-oss-20b",
    calls: [groqError, groqReasoning],
    expected: {
      status: "done",
      stop_reason: "end_turn",
      answers: [[{ type: "thinking", thinking: "Tokyo is UTC+9; it is 19:00 there." }, text("It is 19:00 in Tokyo.")]],
      deltas: [{ "0:reasoning": "Tokyo is UTC+9; it is 19:00 there.", "1": "It is 19:00 in Tokyo." }],
      usage: { steps: 1, input_tokens: 78, output_tokens: 31, reasoning_tokens: 19 },
      requests: 2,
    },
  },
  {
    name: "vLLM: a stream that ends with no finish reason is retried; its reasoning and text drafts are dropped, not left beside the retry's",
    provider: "openai",
    calls: [vllmCut, chatText],
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
    name: "Legacy function_call: read as a tool call, run, and answered in the next request",
    provider: "openai",
    calls: [legacyCall, chatText],
    session: { tools: GET_TIME },
    expected: {
      status: "done",
      stop_reason: "end_turn",
      answers: [
        [
          {
            type: "tool_use",
            id: expect.stringMatching(/^call_[0-9a-f]{32}$/) as string,
            name: "get_time",
            input: { timezone: "Asia/Tokyo" },
          },
        ],
        [text(TOKYO)],
      ],
      deltas: [{}, { "0": TOKYO }],
      usage: { steps: 2, input_tokens: 82 + 48, output_tokens: 18 + 17 },
      requests: 2,
      next: (body) => {
        const turns = turnsOf(body);
        const call = (turns[1]!.tool_calls as { id: string }[])[0]!;
        expect(turns[1]).toEqual({
          role: "assistant",
          content: null,
          tool_calls: [{ id: call.id, type: "function", function: { name: "get_time", arguments: '{"timezone":"Asia/Tokyo"}' } }],
        });
        expect(turns[2]).toMatchObject({ role: "tool", tool_call_id: call.id });
        expect(turns[2]!.content).toContain("Asia/Tokyo");
      },
    },
  },
];

describe("the provider stream corpus: reasoning formats, legacy calls, failed attempts", () => {
  it.each(CASES)("$name", checkCorpusCase);
});

describe("delta_reset", () => {
  it("reaches a watcher after the failed attempt's deltas and before the retry's, naming every block it wrote", async () => {
    const t = newTestSession("gpt-oss-20b");
    const { watch } = await replay(t, { ...CASES[2]!, calls: [groqError, groqReasoning] });
    const types = watch.frames.map((frame) => frame.type);
    const reset = types.indexOf("delta_reset");
    expect(reset).toBeGreaterThan(0);
    expect(types.lastIndexOf("delta_reset")).toBe(reset);
    expect(watch.frames[reset]!.data).toEqual({ indices: [0, 1] });
    const written = (frames: typeof watch.frames) =>
      frames.flatMap((frame) => (frame.type === "delta" ? [(frame.data as { text: string }).text] : [])).join("");
    // The failed attempt's text went out before the reset, none of the retry's did; after it, only the retry's.
    expect(written(watch.frames.slice(0, reset))).toBe(
      "The user asks the time in Tokyo. Tokyo is UTC+9.It is 19:00 in Tokyo — the sun has set",
    );
    expect(written(watch.frames.slice(reset))).toBe("Tokyo is UTC+9; it is 19:00 there.It is 19:00 in Tokyo.");
    expect(types.indexOf("message", reset)).toBeGreaterThan(reset);
    const saved = (await messages(t)).filter((m) => m.role === "assistant");
    expect(JSON.stringify(saved)).not.toContain("the sun has set");
  });

  it("is not sent when the failed attempt streamed nothing", async () => {
    const t = newTestSession();
    await t.model.script({ status: 500, body: { error: { message: "The server had an error", type: "server_error" } } });
    const { watch } = await replay(t, { ...CASES[3]!, calls: [chatText] });
    expect(watch.frames.some((frame) => frame.type === "delta_reset")).toBe(false);
  });
});
