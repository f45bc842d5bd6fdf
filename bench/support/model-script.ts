/**
 * The mock model's script for a benchmark run, and what its clock recorded: one `get_time`
 * call per step, then a final answer; unit boundaries read from the arrival and answer times
 * of the model calls.
 */
import type { ModelStep, RecordedRequest } from "../../test/e2e/support/mock-process";

/** The only tool of a benchmark session. */
export const GET_TIME_TOOL = { type: "builtin", name: "get_time" } as const;

/** `steps` answers that each call `get_time` once (ids unique in the run), then a text answer. */
export function toolSteps(steps: number): ModelStep[] {
  const calls: ModelStep[] = Array.from({ length: steps }, (_, i) => ({
    reply: { content: [{ type: "tool_use", id: `toolu_bench_${i}`, name: "get_time", input: {} }] },
  }));
  return [...calls, { reply: { content: [{ type: "text", text: "done" }] } }];
}

export interface ModelTimeline {
  /** When each model call arrived: the start of its unit, as near as the mock can see. */
  arrivals: number[];
  /** When each answer was sent: the model call's end. */
  answers: number[];
}

export function timelineOf(requests: readonly RecordedRequest[]): ModelTimeline {
  const sorted = [...requests].sort((a, b) => a.received_at - b.received_at);
  return { arrivals: sorted.map((r) => r.received_at), answers: sorted.map((r) => r.answered_at ?? Number.NaN) };
}

/**
 * The time from each answer to the next model call: the rest of the model unit (saving the
 * answer), the alarm, the tool unit, the next alarm and the start of the next model unit.
 */
export function gapsBetweenModelCalls(t: ModelTimeline): number[] {
  return t.arrivals.slice(1).map((arrival, i) => arrival - t.answers[i]!);
}

/** Step k (1-based) lasts from model call k to model call k+1. */
export function stepDurations(t: ModelTimeline): number[] {
  return t.arrivals.slice(1).map((arrival, i) => arrival - t.arrivals[i]!);
}
