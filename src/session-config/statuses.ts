/** A session's statuses, the groups every rule reads them by, and why a run stopped. */

/** Every session status: the one list the types, the API schemas and the tenant index use. */
export const SESSION_STATUSES = [
  "idle",
  "queued",
  "running",
  "waiting_approval",
  "waiting_tool_output",
  "waiting_subagents",
  "waiting_budget",
  "paused",
  "done",
  "failed",
  "cancelled",
] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** A run is going: a new one cannot start, and it can be cancelled. */
export const ACTIVE_STATUSES: readonly SessionStatus[] = [
  "queued",
  "running",
  "waiting_approval",
  "waiting_tool_output",
  "waiting_subagents",
  "waiting_budget",
  "paused",
];
/**
 * The statuses that hold one of the tenant's run slots. A session waiting for a person, a
 * client, a resume, a raised budget or a free slot holds none.
 */
export const SLOT_STATUSES: readonly SessionStatus[] = ["running"];
export const FINAL_STATUSES: readonly SessionStatus[] = ["done", "failed", "cancelled"];
/** A run waits for someone: a person (an approval), a client (a tool's output), or its child sessions. It holds no run slot. */
export const WAITING_STATUSES: readonly SessionStatus[] = ["waiting_approval", "waiting_tool_output", "waiting_subagents"];

/**
 * What a run in `waiting_budget` waits on: its session's own tokens or cost, or a daily budget of
 * the tenant (tokens, cost), of its creator (tokens) or of its API key (tokens).
 */
export const BUDGET_WAITS = ["session_tokens", "session_cost", "tenant_tokens", "tenant_cost", "subject_tokens", "key_tokens"] as const;
export type BudgetWait = (typeof BUDGET_WAITS)[number];

/**
 * Why a run ended: the one list the types, the API schemas and the tenant index use.
 * `end_turn`, `max_tokens` (the answer was cut off at its token cap), `refusal` (the provider
 * declined to answer), `context_window_exceeded` (the answer filled the model's context window),
 * `step_limit` and `token_limit` end `done`; `invalid_output` (no answer
 * valid for the run's `output_schema`), `model_error` and `tools_unavailable` (the run's MCP
 * tool set could not be listed) end `failed`; `cancelled` ends `cancelled`.
 */
export const STOP_REASONS = [
  "end_turn",
  "max_tokens",
  "refusal",
  "context_window_exceeded",
  "step_limit",
  "token_limit",
  "budget_limit",
  "invalid_output",
  "model_error",
  "tools_unavailable",
  "cancelled",
] as const;
export type StopReason = (typeof STOP_REASONS)[number];
