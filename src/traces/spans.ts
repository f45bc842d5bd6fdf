/**
 * The spans of a run, with the OpenTelemetry GenAI semantic-convention attributes: the run's
 * root (`invoke_agent`), one `chat` per model call (a summary is a model call too), one
 * `execute_tool` per tool call, and the listing of MCP servers' tools. Pure: the caller passes
 * the times and what the unit learned. Message content is added only when the tenant asked.
 */
import type { RunTrace, SpanAttribute, SpanRecord } from "../session-config/trace-types";

/** GenAI attribute values are strings; content past this is cut, so one span stays far below a collector's limits. */
export const MAX_CONTENT_CHARS = 16 * 1024;

/** What every span of a run says about where it belongs. */
export interface RunFacts {
  sessionId: string;
  /** The agent definition the session runs, or null for an ad hoc session. */
  agentId: string | null;
  /** `anthropic` or `openai`: the catalog's provider of the session's model. */
  provider: string;
  /** The provider's own model id. */
  model: string;
}

function common(facts: RunFacts): Record<string, SpanAttribute> {
  return {
    "gen_ai.provider.name": facts.provider,
    "gen_ai.conversation.id": facts.sessionId,
    ...(facts.agentId ? { "gen_ai.agent.id": facts.agentId } : {}),
  };
}

function content(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > MAX_CONTENT_CHARS ? text.slice(0, MAX_CONTENT_CHARS) : text;
}

function child(
  trace: RunTrace,
  spanId: string,
  name: string,
  kind: SpanRecord["kind"],
  start: number,
  end: number,
): Omit<SpanRecord, "attributes" | "error"> {
  return { trace_id: trace.trace_id, span_id: spanId, parent_span_id: trace.span_id, name, kind, start_ms: start, end_ms: end };
}

export interface RunEnd {
  endMs: number;
  status: string;
  stopReason: string | null;
  error: string | null;
  inputTokens: number;
  outputTokens: number;
  /** The run's user message, shown only with `capture_content`. */
  input?: unknown;
}

/** The run's root span, written when the run ends (or is replaced by the next). */
export function rootSpan(trace: RunTrace, facts: RunFacts, end: RunEnd): SpanRecord {
  const failed = end.status === "failed";
  return {
    trace_id: trace.trace_id,
    span_id: trace.span_id,
    parent_span_id: trace.parent_span_id,
    name: `invoke_agent ${trace.agent_name ?? facts.agentId ?? facts.sessionId}`,
    kind: "internal",
    start_ms: trace.started_at,
    end_ms: end.endMs,
    attributes: {
      "gen_ai.operation.name": "invoke_agent",
      ...common(facts),
      ...(trace.agent_name ? { "gen_ai.agent.name": trace.agent_name } : {}),
      "gen_ai.request.model": facts.model,
      "gen_ai.usage.input_tokens": end.inputTokens,
      "gen_ai.usage.output_tokens": end.outputTokens,
      "agent_platform.run.status": end.status,
      ...(end.stopReason ? { "agent_platform.run.stop_reason": end.stopReason } : {}),
      ...(failed ? { "error.type": end.stopReason ?? "failed" } : {}),
      ...(trace.capture_content && end.input !== undefined
        ? { "gen_ai.input.messages": content([{ role: "user", parts: end.input }]) }
        : {}),
    },
    error: failed ? (end.error ?? "the run failed") : null,
  };
}

/** What a model unit learned about its call; the unit fills it in as it goes. */
export interface CallNote {
  finishReasons?: string[];
  responseModel?: string;
  inputTokens?: number;
  outputTokens?: number;
  /** The answer's content blocks, shown only with `capture_content`. */
  output?: unknown;
  errorType?: string;
  error?: string;
}

/** One model call: `chat <model>`; `unit: "summary"` marks the call that summarizes the history. */
export function chatSpan(
  trace: RunTrace,
  facts: RunFacts,
  spanId: string,
  start: number,
  end: number,
  note: CallNote,
  unit: "model" | "summary",
): SpanRecord {
  return {
    ...child(trace, spanId, `chat ${facts.model}`, "client", start, end),
    attributes: {
      "gen_ai.operation.name": "chat",
      ...common(facts),
      "gen_ai.request.model": facts.model,
      ...(note.responseModel ? { "gen_ai.response.model": note.responseModel } : {}),
      ...(note.inputTokens !== undefined ? { "gen_ai.usage.input_tokens": note.inputTokens } : {}),
      ...(note.outputTokens !== undefined ? { "gen_ai.usage.output_tokens": note.outputTokens } : {}),
      ...(note.finishReasons ? { "gen_ai.response.finish_reasons": note.finishReasons } : {}),
      "agent_platform.unit": unit,
      ...(note.errorType ? { "error.type": note.errorType } : {}),
      ...(trace.capture_content && note.output !== undefined
        ? { "gen_ai.output.messages": content([{ role: "assistant", parts: note.output }]) }
        : {}),
    },
    error: note.errorType ? (note.error ?? note.errorType) : null,
  };
}

export interface ToolCallFacts {
  id: string;
  name: string;
  input: unknown;
  output: string;
  isError: boolean;
  start: number;
  end: number;
  /** The tool policy's decision, when one judged the call. */
  policy?: { decision: string; policy_ids: string[] } | null;
}

/** One tool call: `execute_tool <tool>`, its id derived from the call's (see `derivedSpanId`). */
export function toolSpan(trace: RunTrace, facts: RunFacts, spanId: string, call: ToolCallFacts): SpanRecord {
  return {
    ...child(trace, spanId, `execute_tool ${call.name}`, "internal", call.start, call.end),
    attributes: {
      "gen_ai.operation.name": "execute_tool",
      ...common(facts),
      "gen_ai.tool.name": call.name,
      "gen_ai.tool.call.id": call.id,
      ...(call.policy ? { "platform.policy.decision": call.policy.decision, "platform.policy.ids": call.policy.policy_ids.join(",") } : {}),
      ...(call.isError ? { "error.type": call.policy?.decision === "deny" ? "policy_denied" : "tool_error" } : {}),
      ...(trace.capture_content
        ? { "gen_ai.tool.call.arguments": content(call.input), "gen_ai.tool.call.result": content(call.output) }
        : {}),
    },
    error: call.isError ? "the tool call failed" : null,
  };
}

/** The listing of the MCP servers' tools at a run's start. */
export function discoverySpan(trace: RunTrace, facts: RunFacts, spanId: string, start: number, end: number, outcome: string): SpanRecord {
  const failed = outcome === "failed" || outcome === "error" || outcome === "retry";
  return {
    ...child(trace, spanId, "discover_tools", "internal", start, end),
    attributes: { ...common(facts), "agent_platform.unit": "discover", ...(failed ? { "error.type": outcome } : {}) },
    error: failed ? `tool discovery ended ${outcome}` : null,
  };
}
