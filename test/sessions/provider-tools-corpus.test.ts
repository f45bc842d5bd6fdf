/**
 * Provider-hosted tools over recorded Anthropic streams (web search with citations, web fetch,
 * code execution, a paused turn of many blocks; sources in test/fixtures/provider-streams/README.md),
 * cut at awkward bytes by the mock model, through the whole loop: every block and citation saved
 * exactly as given, sent back unchanged (search results' `encrypted_content` included), the paused
 * turn continued with all of it and the same tools, and the provider's tool requests counted.
 */
import { describe, expect, it } from "vitest";
import type { ContentBlock, ToolSpec } from "../../src/session-config/types";
import { getSession, messages, newTestSession, toolCalls, waitForStatus } from "../support/agent-session";
import { type Json, replay } from "../support/corpus";
import anthropicText from "../fixtures/provider-streams/anthropic/text-pings.sse?raw";
import webSearch from "../fixtures/provider-streams/anthropic/web-search-citations.sse?raw";
import webFetch from "../fixtures/provider-streams/anthropic/web-fetch.sse?raw";
import codeExecution from "../fixtures/provider-streams/anthropic/code-execution.sse?raw";
import pausedSearch from "../fixtures/provider-streams/anthropic/pause-turn-web-search.sse?raw";

const SEARCH: ToolSpec[] = [{ type: "provider", name: "web_search", max_uses: 3 }];
const FETCH: ToolSpec[] = [{ type: "provider", name: "web_fetch", citations: { enabled: true } }];
const CODE: ToolSpec[] = [{ type: "provider", name: "code_execution" }];
/** These recordings are long (16-68 kB): cut every 251 bytes besides every character and event edge, they stream within the model timeout. */
const SPLIT_EVERY = 251;
const TOKYO = "It is 19:00 in Tokyo — 東京では午後7時です。";

/**
 * The answer a recorded stream holds, read straight from its events (the oracle, apart from the
 * platform's reader): each block as it started, its text, citations and input pieces added; empty
 * text left out, as the platform leaves it out.
 */
function recordedAnswer(sse: string): ContentBlock[] {
  const blocks = new Map<number, { block: Json; json: string }>();
  for (const line of sse.split("\n")) {
    if (!line.startsWith("data: ")) continue;
    const event = JSON.parse(line.slice(6)) as Json & { index: number; content_block: Json; delta: Json };
    if (event.type === "content_block_start") blocks.set(event.index, { block: structuredClone(event.content_block), json: "" });
    if (event.type !== "content_block_delta") continue;
    const entry = blocks.get(event.index)!;
    if (event.delta.type === "text_delta") entry.block.text = String(entry.block.text) + String(event.delta.text);
    if (event.delta.type === "citations_delta") (entry.block.citations as unknown[]).push(event.delta.citation);
    if (event.delta.type === "input_json_delta") entry.json += String(event.delta.partial_json);
  }
  return [...blocks.entries()]
    .sort(([a], [b]) => a - b)
    .flatMap(([, { block, json }]) => {
      if (block.type === "text") {
        if (block.text === "") return [];
        const citations = block.citations as unknown[] | undefined;
        return [(citations?.length ? block : { type: "text", text: block.text }) as ContentBlock];
      }
      return [(json.trim() ? { ...block, input: JSON.parse(json) } : block) as ContentBlock];
    });
}

const turnsOf = (body: unknown) => (body as { messages: { role: string; content: Json[] }[] }).messages;

describe("provider tools over recorded streams", () => {
  it("web search: the tool call, its results and the cited text are saved as given, counted, and go back on the next turn", async () => {
    const t = newTestSession();
    const { first } = await replay(t, {
      name: "",
      provider: "anthropic",
      splitEvery: SPLIT_EVERY,
      calls: [webSearch, anthropicText],
      session: { tools: SEARCH },
      followUp: "And in Osaka?",
      expected: { status: "done", stop_reason: "end_turn", answers: [], deltas: [], usage: {}, requests: 2 },
    });
    await waitForStatus(t, ["done", "failed"]);
    const answer = recordedAnswer(webSearch);
    const saved = (await messages(t)).filter((m) => m.role === "assistant").map((m) => m.content);
    expect(saved).toEqual([answer, [{ type: "text", text: TOKYO }]]);
    // 21 blocks on the wire; the two empty text blocks are not kept. 14 citations on 9 text blocks.
    expect(answer).toHaveLength(21);
    expect(answer.flatMap((b) => (b.type === "text" ? (b.citations ?? []) : []))).toHaveLength(14);
    expect(answer[0]).toEqual({
      type: "server_tool_use",
      id: "srvtoolu_01Bj5uzzLcYG5hfueSLcDH8k",
      name: "web_search",
      input: { query: "tech news today September 26 2025" },
    });
    expect(first?.usage).toMatchObject({
      steps: 1,
      input_tokens: 15665,
      output_tokens: 795,
      web_search_requests: 1,
      web_fetch_requests: 0,
    });

    const [call, next] = await t.model.requests();
    // Both calls declare the tool as the API names it; web search needs no beta.
    for (const request of [call!, next!]) {
      expect((request.body as Json).tools).toEqual([{ type: "web_search_20250305", name: "web_search", max_uses: 3 }]);
      expect(request.headers["anthropic-beta"]).toBeUndefined();
    }
    const turns = turnsOf(next!.body);
    expect(turns.map((turn) => turn.role)).toEqual(["user", "assistant", "user"]);
    expect(turns[1]!.content).toEqual(answer);
    const results = turns[1]!.content.find((b) => b.type === "web_search_tool_result") as { content: { encrypted_content: string }[] };
    expect(results.content).toHaveLength(10);
    expect(results.content.every((result) => result.encrypted_content.length > 100)).toBe(true);
    // The search results as the provider sent them, byte for byte.
    const recorded = webSearch.split("\n").find((line) => line.includes('"web_search_tool_result"'))!;
    expect(JSON.stringify(results)).toBe(JSON.stringify((JSON.parse(recorded.slice(6)) as { content_block: unknown }).content_block));
  });

  it("pause_turn: the continuation sends every block of the paused answer back unchanged, with the same tools, as one answer", async () => {
    const t = newTestSession();
    await replay(t, {
      name: "",
      provider: "anthropic",
      splitEvery: SPLIT_EVERY,
      calls: [pausedSearch, anthropicText],
      session: { tools: SEARCH },
      expected: { status: "done", stop_reason: "end_turn", answers: [], deltas: [], usage: {}, requests: 2 },
    });
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done", stop_reason: "end_turn" });
    const paused = recordedAnswer(pausedSearch);
    const saved = (await messages(t)).filter((m) => m.role === "assistant").map((m) => m.content);
    expect(saved).toEqual([paused, [{ type: "text", text: TOKYO }]]);
    const [call, continuation] = await t.model.requests();
    const turns = turnsOf(continuation!.body);
    // The paused answer is the last turn, whole: nothing after it, nothing of it left out.
    expect(turns.map((turn) => turn.role)).toEqual(["user", "assistant"]);
    expect(turns[1]!.content).toEqual(paused);
    expect(turns[1]!.content).toHaveLength(21);
    expect((continuation!.body as Json).tools).toEqual((call!.body as Json).tools);
    // Two model calls, each a step; usage is the sum of both.
    expect((await getSession(t)).usage).toMatchObject({
      steps: 2,
      input_tokens: 15665 + 25,
      output_tokens: 795 + 15,
      web_search_requests: 1,
    });
  });

  it("web fetch: the fetched document is kept as given, the beta is asked for, and the fetch is counted", async () => {
    const t = newTestSession();
    await replay(t, {
      name: "",
      provider: "anthropic",
      splitEvery: SPLIT_EVERY,
      calls: [webFetch],
      session: { tools: FETCH },
      expected: { status: "done", stop_reason: "end_turn", answers: [], deltas: [], usage: {}, requests: 1 },
    });
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done", stop_reason: "end_turn" });
    const saved = (await messages(t)).filter((m) => m.role === "assistant").map((m) => m.content);
    const answer = recordedAnswer(webFetch);
    expect(saved).toEqual([answer]);
    expect(answer.map((b) => b.type)).toEqual(["text", "server_tool_use", "web_fetch_tool_result", "text"]);
    const [request] = await t.model.requests();
    expect(request!.headers["anthropic-beta"]).toBe("web-fetch-2025-09-10");
    expect((request!.body as Json).tools).toEqual([{ type: "web_fetch_20250910", name: "web_fetch", citations: { enabled: true } }]);
    expect((await getSession(t)).usage).toMatchObject({ steps: 1, web_fetch_requests: 1, web_search_requests: 0 });
  });

  it("code execution: the bash and text-editor calls and results are kept as given; none is run by the platform", async () => {
    const t = newTestSession();
    await replay(t, {
      name: "",
      provider: "anthropic",
      splitEvery: SPLIT_EVERY,
      calls: [codeExecution],
      session: { tools: CODE },
      expected: { status: "done", stop_reason: "end_turn", answers: [], deltas: [], usage: {}, requests: 1 },
    });
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done", stop_reason: "end_turn" });
    const saved = (await messages(t)).filter((m) => m.role === "assistant").map((m) => m.content);
    const answer = recordedAnswer(codeExecution);
    expect(saved).toEqual([answer]);
    expect(answer.map((b) => b.type)).toEqual([
      "text",
      "server_tool_use",
      "text_editor_code_execution_tool_result",
      "text",
      "server_tool_use",
      "bash_code_execution_tool_result",
      "text",
    ]);
    const [request] = await t.model.requests();
    expect(request!.headers["anthropic-beta"]).toBe("code-execution-2025-08-25");
    expect((request!.body as Json).tools).toEqual([{ type: "code_execution_20250825", name: "code_execution" }]);
    expect(await toolCalls(t)).toEqual([]);
  });
});
