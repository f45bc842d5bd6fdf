/**
 * Where a run's spans are written: each in the transaction of what it describes (the unit's step
 * record, the tool call's result, the run's end), to the trace outbox the exporter empties
 * (../../../traces/exporter.ts). A run without a trace (its tenant exports none) writes nothing.
 */
import { derivedSpanId, formatTraceparent, newSpanId, newTraceId, parseTraceparent } from "../../../traces/trace-context";
import { type CallNote, chatSpan, discoverySpan, type RunFacts, rootSpan, toolSpan } from "../../../traces/spans";
import type { RunTrace, TraceRequest } from "../../../session-config/trace-types";
import { parseModel } from "../../../models/catalog";
import type { RunState, SessionStore, StoredSession } from "../store/store";
import type { ContentBlock, ToolCall, UnitKind, UnitOutcome } from "../../../session-config/types";
import { FINAL_STATUSES } from "../../../session-config/types";

export function runFacts(session: StoredSession): RunFacts {
  const { provider, name } = parseModel(session.model);
  return { sessionId: session.id, agentId: session.agent?.id ?? null, provider, model: name };
}

/**
 * A new run's trace: a child of the caller's span when it sent one (for a child session, its
 * parent's `execute_tool` span), else a trace of its own. `agentName`: the session's agent's, for the root span's name.
 */
export function newRunTrace(request: TraceRequest, run: RunState, now: number, agentName: string | null): RunTrace {
  // Checked again at the object's boundary: a malformed parent starts a trace of its own.
  const parent = request.parent && parseTraceparent(`00-${request.parent.trace_id}-${request.parent.span_id}-01`) ? request.parent : null;
  return {
    trace_id: parent?.trace_id ?? newTraceId(),
    span_id: newSpanId(),
    parent_span_id: parent?.span_id ?? null,
    sampled: parent ? parent.sampled === true : true,
    capture_content: request.capture_content === true,
    started_at: now,
    agent_name: agentName,
    input_tokens_at_start: run.usage.input_tokens,
    output_tokens_at_start: run.usage.output_tokens,
  };
}

/** The `traceparent` for a request made under `spanId` of the run's trace. */
export function traceparentOf(trace: RunTrace | null | undefined, spanId: string): string | undefined {
  return trace ? formatTraceparent({ traceId: trace.trace_id, spanId, sampled: trace.sampled }) : undefined;
}

/** A tool call's span id: derived from its id, so its webhook's `traceparent` and its span agree after any restart. */
export function toolSpanId(trace: RunTrace, callId: string): string {
  return derivedSpanId(trace.trace_id, `tool/${callId}`);
}

/**
 * Inside the run state's change: the root span of a run whose trace ends here (the run reached
 * a final status, or the next run replaced it). Returns the trace the new state keeps.
 */
export function closeRunTrace(store: SessionStore, before: RunState, after: RunState, now: number): RunTrace | null {
  const trace = before.trace ?? null;
  const replaced = (after.trace ?? null) !== trace;
  const ended = FINAL_STATUSES.includes(after.status) && !FINAL_STATUSES.includes(before.status);
  if (!trace || !(replaced || ended)) return after.trace ?? null;
  const session = store.requireSession();
  const input =
    trace.capture_content && before.run_start_seq > 0
      ? store.messageRange(before.run_start_seq, before.run_start_seq)[0]?.content
      : undefined;
  const status = ended ? after.status : "interrupted";
  store.appendSpan(
    rootSpan(trace, runFacts(session), {
      endMs: now,
      status,
      stopReason: ended ? after.stop_reason : "interrupted",
      error: ended ? after.error : null,
      inputTokens: after.usage.input_tokens - trace.input_tokens_at_start,
      outputTokens: after.usage.output_tokens - trace.output_tokens_at_start,
      ...(input ? { input } : {}),
    }),
    now,
  );
  return replaced ? (after.trace ?? null) : null;
}

/** Inside the transaction that gives a call its result. */
export function recordToolSpan(store: SessionStore, call: ToolCall, output: string, isError: boolean, now: number): void {
  const trace = store.run().trace;
  if (!trace) return;
  const start = Date.parse(call.started_at ?? call.created_at);
  store.appendSpan(
    toolSpan(trace, runFacts(store.requireSession()), toolSpanId(trace, call.id), {
      id: call.id,
      name: call.name,
      input: call.input,
      output,
      isError,
      start: Math.min(start, now),
      end: now,
      policy: call.policy,
    }),
    now,
  );
}

/** What a unit learned for its span (`UnitScope.trace`). */
export interface UnitTrace {
  readonly spanId: string;
  note: CallNote;
}

/** Inside the transaction of the unit's step record: the unit's span, for the trace it started under. */
export function recordUnitSpan(
  store: SessionStore,
  trace: RunTrace | null | undefined,
  kind: UnitKind,
  unit: UnitTrace,
  start: number,
  end: number,
  outcome: UnitOutcome,
): void {
  if (!trace || kind === "tools") return; // tool calls have spans of their own
  const facts = runFacts(store.requireSession());
  if (kind === "discover") {
    store.appendSpan(discoverySpan(trace, facts, unit.spanId, start, end, outcome), end);
    return;
  }
  const note: CallNote = { ...unit.note };
  if (!note.errorType && (outcome === "error" || outcome === "failed")) note.errorType = outcome === "error" ? "internal_error" : "failed";
  store.appendSpan(chatSpan(trace, facts, unit.spanId, start, end, note, kind === "summary" ? "summary" : "model"), end);
}

/** The content a chat span shows with `capture_content`. */
export type CapturedOutput = ContentBlock[];
