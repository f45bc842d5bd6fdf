/**
 * Long sessions through the public API against a real `wrangler dev`: 300 steps with `auto` and
 * with `summary`. Every model request must be a valid history under the budget that still
 * carries the task at step 300, and `summary` must make few summaries and reuse each one. The
 * time per step at step 300 against step 10 is measured and printed (speed targets live in
 * bench/, not in tests).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { estimateJsonTokens, estimateMessageTokens, estimateTextTokens } from "../../src/sessions/object/context/estimate";
import { SUMMARY_HEADING } from "../../src/sessions/object/context/summary-prompt";
import type { ContentBlock } from "../../src/session-config/types";
import { requestProblems, requestText } from "../support/request-checks";
import type { ModelStep } from "../support/mock-protocol";
import { historyProblems } from "./support/history";
import type { RecordedRequest } from "./support/mock-process";
import { waitForFinal } from "./support/scenario";
import { type Stack, startStack, uniqueName } from "./support/stack";

const STEPS = 300;
const BUDGET = 3_000;
const TASK = "THE TASK: check the clock three hundred times and report each reading";
const RUN_TIMEOUT_MS = 240_000;
const SUMMARY_MATCH = { system_includes: "running summary" };

interface Body {
  system?: { text: string }[];
  tools?: Record<string, unknown>[];
  messages: { role: string; content: (ContentBlock & { cache_control?: unknown })[] }[];
}

const isSummary = (r: RecordedRequest) => JSON.stringify(r.body).includes("running summary");

/** The platform's estimate of a request as sent, cache marks left out. */
function estimateOf(body: Body): number {
  const strip = <T extends Record<string, unknown>>({ cache_control: _mark, ...rest }: T) => rest;
  const system = body.system?.map((b) => b.text).join("") ?? "";
  const tools = (body.tools ?? []).map(strip);
  return (
    (system ? estimateTextTokens(system) : 0) +
    (tools.length ? estimateJsonTokens(tools) : 0) +
    body.messages.reduce((sum, m) => sum + estimateMessageTokens(m.content.map((b) => strip(b as never) as unknown as ContentBlock)), 0)
  );
}

function steps(): ModelStep[] {
  return [
    ...Array.from({ length: STEPS - 1 }, (_, i): ModelStep => ({
      reply: {
        content: [
          { type: "text", text: `Reading ${i + 1} taken; checking the clock once more.` },
          { type: "tool_use", id: `toolu_${i}`, name: "get_time", input: {} },
        ],
      },
    })),
    { reply: { content: [{ type: "text", text: "All readings reported." }] } },
  ];
}

/** Spans measured on each side of a step, so one slow span of a loaded machine does not decide. */
const SPANS_AROUND = 10;

/** Median time from one loop call to the next around `step` (1-based), skipping spans that held a summary. */
function stepTime(loop: RecordedRequest[], all: RecordedRequest[], step: number): number {
  const spans: number[] = [];
  const first = Math.max(1, Math.min(step, loop.length - SPANS_AROUND) - SPANS_AROUND);
  for (let k = first; k < Math.min(loop.length, first + 2 * SPANS_AROUND); k++) {
    const start = loop[k - 1]!.received_at;
    const end = loop[k]!.received_at;
    if (all.some((r) => isSummary(r) && r.received_at > start && r.received_at < end)) continue;
    spans.push(end - start);
  }
  spans.sort((a, b) => a - b);
  return spans[Math.floor(spans.length / 2)]!;
}

describe("a 300-step session", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ limits: { max_steps_per_run: STEPS + 10, max_tokens_per_session: 10_000_000 } });
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  async function run(strategy: "auto" | "summary") {
    const client = await stack.client(uniqueName("tenant"));
    const model = stack.mock.model(uniqueName(strategy));
    await model.script(...steps());
    if (strategy === "summary") {
      await model.script({
        match: SUMMARY_MATCH,
        repeat: 100,
        reply: { content: [{ type: "text", text: `So far: ${TASK.toLowerCase()}; readings taken up to now, all normal.` }] },
      });
    }
    const session = await client.createSession({
      input: TASK,
      model: model.key,
      tools: [{ type: "builtin", name: "get_time" }],
      context: { strategy, max_input_tokens: BUDGET },
    });
    const final = await waitForFinal(client, session.id, RUN_TIMEOUT_MS);
    expect(final.status, stack.logs()).toBe("done");
    expect(final.usage.steps).toBe(STEPS);
    const all = await model.requests();
    const loop = all.filter((r) => !isSummary(r));
    expect(loop).toHaveLength(STEPS);
    for (const [i, request] of loop.entries()) {
      const body = request.body as Body;
      expect([i, requestProblems(body.messages)]).toEqual([i, []]);
      expect([i, estimateOf(body) <= BUDGET]).toEqual([i, true]);
      expect([i, requestText(body.messages).includes(TASK)]).toEqual([i, true]);
    }
    expect(historyProblems(await client.messages(session.id), await client.toolCalls(session.id))).toEqual([]);
    const at10 = stepTime(loop, all, 10);
    const at300 = stepTime(loop, all, STEPS);
    const size = (r: RecordedRequest) => r.body_text.length;
    console.log(
      `[${strategy}] time per step: ${at10} ms at step 10, ${at300} ms at step 300 (×${(at300 / at10).toFixed(2)}); ` +
        `request at step 10: ${size(loop[9]!)} chars, at step 300: ${size(loop[STEPS - 1]!)} chars; summaries: ${all.length - loop.length}`,
    );
    return { all, loop, final };
  }

  it("with auto: every request is a valid history under the budget that carries the task", async () => {
    const { loop } = await run("auto");
    // The window slid: the last request no longer holds the first steps.
    expect(loop[STEPS - 1]!.body_text).not.toContain('"toolu_0"');
  });

  it("with summary: the same, with few summaries, each sent until the next one replaces it", async () => {
    const { all, loop, final } = await run("summary");
    const summaries = all.filter(isSummary);
    expect(summaries.length).toBeGreaterThanOrEqual(1);
    expect(summaries.length).toBeLessThanOrEqual(STEPS / 10);
    // Each summary is made once and reused: the loop requests after it carry it until the next.
    const carried = loop.map((r) =>
      requestText((r.body as Body).messages).includes(SUMMARY_HEADING) ? JSON.stringify((r.body as Body).messages[0]) : null,
    );
    const firstWith = carried.findIndex((c) => c !== null);
    expect(firstWith).toBeGreaterThan(0);
    expect(carried.slice(firstWith).every((c) => c !== null)).toBe(true);
    // Summaries count in usage (each mock answer reports 10 input and 5 output tokens) but not in steps.
    expect(final.usage.input_tokens).toBe(10 * all.length);
  });
});
