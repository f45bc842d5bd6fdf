/**
 * Scenario 3: the loop's pace. One unit (a model call or a round of tool calls) runs per
 * alarm, and the next unit starts promptly after the previous one ends, measured on the mock
 * server's own clock: each request's arrival against the previous answer's departure.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { historyProblems } from "./support/history";
import { loadFactor, underLoad } from "./support/machine-load";
import type { RecordedRequest } from "./support/mock-process";
import { callTools, say, waitForFinal, webhookTool } from "./support/scenario";
import { type SharedStack, sharedStack, uniqueName } from "./support/stack";

const STEPS = 10;
/** The promise: the next unit starts less than a second after the previous one ended (on an idle machine; stretched by its load). */
const MAX_GAP_MS = 1_000;
const RUN_TIMEOUT_MS = 60_000;

describe("the pace of a run", () => {
  let stack: SharedStack;

  beforeAll(async () => {
    stack = await sharedStack();
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  it(`starts each unit of a ${STEPS}-step run less than ${MAX_GAP_MS} ms after the previous one ends`, async () => {
    const loadBefore = loadFactor();
    const client = await stack.client(uniqueName("tenant"));
    const model = stack.mock.model(uniqueName("model"));
    const hook = stack.mock.hook(uniqueName("lookup"));
    const steps = Array.from({ length: STEPS - 1 }, (_, k) => callTools([[`toolu_pace_${k}`, "lookup"]]));
    await model.script(...steps, say("paced"));
    const session = await client.createSession({ input: "go", model: model.key, tools: [webhookTool("lookup", hook.url, false)] });

    const final = await waitForFinal(client, session.id, RUN_TIMEOUT_MS);
    expect(final.status, stack.logs()).toBe("done");
    expect(final.usage.steps).toBe(STEPS);

    const modelCalls = (await model.requests()).map((r) => ({ ...r, kind: "model" }));
    const hookCalls = (await hook.requests()).map((r) => ({ ...r, kind: "hook" }));
    const timeline = [...modelCalls, ...hookCalls].sort((a, b) => a.received_at - b.received_at);
    // Model call, tool call, model call, ...: ten model calls and nine tool calls, nothing twice.
    expect(timeline.map((r) => r.kind)).toEqual(Array.from({ length: 2 * STEPS - 1 }, (_, i) => (i % 2 === 0 ? "model" : "hook")));

    const gaps = timeline.slice(1).map((next, i) => gapMs(timeline[i]!, next));
    const load = Math.max(loadBefore, loadFactor());
    expect(Math.max(...gaps), `gaps in ms: ${gaps.join(", ")}; load ${load.toFixed(1)}`).toBeLessThan(underLoad(MAX_GAP_MS, load));
    expect(historyProblems(await client.messages(session.id), await client.toolCalls(session.id))).toEqual([]);
  });
});

function gapMs(previous: RecordedRequest, next: RecordedRequest): number {
  if (previous.answered_at === undefined) throw new Error(`request to ${previous.path} was never answered`);
  return next.received_at - previous.answered_at;
}
