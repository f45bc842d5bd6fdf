/** How the console writes numbers, times and statuses for people. Pure. */
import type { Limits, SessionStatus, ToolCall } from "./types";

const STATUS_LABELS: Record<SessionStatus, string> = {
  idle: "idle",
  queued: "queued",
  running: "running",
  waiting_approval: "waiting for approval",
  waiting_tool_output: "waiting for tool output",
  waiting_subagents: "waiting for sub-agents",
  waiting_budget: "waiting for budget",
  paused: "paused",
  done: "done",
  failed: "failed",
  cancelled: "cancelled",
};

export function statusLabel(status: SessionStatus): string {
  return STATUS_LABELS[status];
}

/**
 * How a decided call's decision reads: who approved or denied it, or that nobody did in time (an
 * expiry is told by `decision`, never by the `system` subject, which a token may also carry).
 * Null for a call never decided.
 */
export function decisionLabel(call: Partial<Pick<ToolCall, "decision" | "decided_by">>): { term: string; detail: string } | null {
  switch (call.decision) {
    case "expired":
      return { term: "Expired", detail: "not approved in time" };
    case "approved":
      return { term: "Approved by", detail: call.decided_by ?? "unknown" };
    case "denied":
      return { term: "Denied by", detail: call.decided_by ?? "unknown" };
    default:
      return null;
  }
}

const NUMBER = new Intl.NumberFormat("en");

export function formatNumber(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : NUMBER.format(value);
}

/** `850 ms`, `4.2 s`, `3 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return seconds === 0 ? `${minutes} min` : `${minutes} min ${seconds} s`;
}

/** `just now`, `5 min ago`, `3 h ago`, else the date. */
export function formatAgo(iso: string, now: number): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return iso;
  const seconds = Math.round((now - then) / 1000);
  if (seconds < 10) return "just now";
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return new Date(then).toISOString().slice(0, 10);
}

/** Every token figure of a usage, summed: what the token limits count. */
export function totalTokens(usage: {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
}): number {
  return usage.input_tokens + usage.output_tokens + (usage.cache_read_tokens ?? 0) + (usage.cache_write_tokens ?? 0);
}

/** A tool input or any JSON value, indented, for a `<pre>`. */
export function formatJson(value: unknown): string {
  if (value === undefined) return "";
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The limit names as a person reads them. */
export const LIMIT_LABELS: Record<keyof Limits, string> = {
  max_steps_per_run: "Steps per run",
  max_tokens_per_call: "Tokens per model call",
  max_tokens_per_session: "Tokens per session",
  max_tool_output_chars: "Tool output characters",
  max_concurrent_runs: "Concurrent runs",
  max_request_bytes: "Request bytes",
  requests_per_minute: "Requests per minute",
  caller_share_percent: "Share of a key or user (%)",
  max_tokens_per_day: "Tokens per day",
  max_image_bytes: "Image bytes",
  max_schedules: "Schedules",
  max_streams_per_session: "Event streams per session",
  max_streams_per_tenant: "Event streams per tenant",
  max_memory_items: "Memory items",
  max_memory_bytes: "Memory bytes",
  max_agent_depth: "Sub-agent depth",
  max_subagents_per_run: "Sub-agents per run",
  max_sessions_per_tree: "Sessions per sub-agent tree",
  max_model_calls_per_tree: "Model calls per sub-agent tree",
  max_cost_usd_per_day: "Cost per day (USD)",
  max_tokens_per_day_per_subject: "Tokens per day per user",
  max_cost_usd_per_session: "Cost per session (USD)",
  end_user_tokens_per_minute: "End-user tokens per minute",
  end_user_requests_per_minute: "Requests per minute per end user",
  max_credentials_per_end_user: "Credentials per end user",
  max_credentials_per_tenant: "Tenant credentials",
  exports_per_minute: "Session exports per minute",
};
