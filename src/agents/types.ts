/**
 * The shapes an Agent keeps and returns: content blocks, messages, tool calls, run state,
 * and the result type of its RPC surface. Content blocks follow the Anthropic Messages
 * format, which is the platform's own storage format; other providers translate.
 */
import type { Limits } from "../limits";
import type { UnitKind, UnitOutcome } from "./run/next-unit";

/** Every session status: the one list the types, the API schemas and the tenant index use. */
export const SESSION_STATUSES = ["idle", "queued", "running", "waiting_approval", "waiting_tool_output", "paused", "done", "failed", "cancelled"] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** A run is going: a new one cannot start, and it can be cancelled. */
export const ACTIVE_STATUSES: readonly SessionStatus[] = ["queued", "running", "waiting_approval", "waiting_tool_output", "paused"];
/**
 * The statuses that hold one of the tenant's run slots. A session waiting for a person, a
 * client, a resume or a free slot holds none.
 */
export const SLOT_STATUSES: readonly SessionStatus[] = ["running"];
export const FINAL_STATUSES: readonly SessionStatus[] = ["done", "failed", "cancelled"];

export const STOP_REASONS = ["end_turn", "step_limit", "token_limit", "model_error", "cancelled"] as const;
export type StopReason = (typeof STOP_REASONS)[number];

export interface TextBlock {
  type: "text";
  text: string;
}
export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}
export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}
export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock;

export type Role = "user" | "assistant";

export interface Message {
  seq: number;
  role: Role;
  content: ContentBlock[];
  created_at: string;
}

export const TOOL_CALL_STATUSES = ["pending", "waiting_approval", "waiting_tool_output", "running", "done", "error"] as const;
export type ToolCallStatus = (typeof TOOL_CALL_STATUSES)[number];

/** How a call that needed approval was decided: by a person, or by its approval timeout. */
export const TOOL_CALL_DECISIONS = ["approved", "denied", "expired"] as const;
export type ToolCallDecision = (typeof TOOL_CALL_DECISIONS)[number];
/** `decided_by` of a call whose approval expired: no principal decided it. */
export const SYSTEM_DECIDER = "system";

export interface ToolCall {
  id: string;
  step: number;
  name: string;
  input: unknown;
  status: ToolCallStatus;
  output: string | null;
  is_error: boolean;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** The subject that approved or denied the call, or `system` when its approval expired; null if never decided. */
  decided_by: string | null;
  decided_at: string | null;
  decision: ToolCallDecision | null;
}

export interface Usage {
  steps: number;
  input_tokens: number;
  output_tokens: number;
}

/**
 * A tool as a session declares it (see the contract's "Tools"). `approval_timeout_seconds`, only
 * with `requires_approval`: a call not decided in time is denied as "approval expired".
 */
export type ToolSpec =
  | { type: "builtin"; name: string; requires_approval?: boolean; approval_timeout_seconds?: number }
  | {
      type: "webhook";
      name: string;
      description: string;
      input_schema: Record<string, unknown>;
      url: string;
      requires_approval?: boolean;
      approval_timeout_seconds?: number;
      at_most_once?: boolean;
    }
  | {
      type: "client";
      name: string;
      description: string;
      input_schema: Record<string, unknown>;
      requires_approval?: boolean;
      approval_timeout_seconds?: number;
    };

/** What the gateway gives an Agent when it creates the session; fixed for its life. */
export interface SessionInit {
  id: string;
  tenant_id: string;
  created_by: string;
  model: string;
  system: string | null;
  tools: ToolSpec[];
  /** The effective limits (platform ← tenant ← session), resolved by the gateway. */
  limits: Limits;
  context: Record<string, unknown> | null;
  metadata: Record<string, string> | null;
  /**
   * Where this session's own status notifications go (every type), besides the tenant's
   * endpoints. Absent in sessions created before notify URLs existed: read as null.
   */
  notify_url?: string | null;
}

export interface Session extends SessionInit {
  notify_url: string | null;
  status: SessionStatus;
  stop_reason: StopReason | null;
  error: string | null;
  usage: Usage;
  created_at: string;
  updated_at: string;
}

/** The compact row a tenant index keeps for each session. */
export interface SessionSummary {
  id: string;
  created_by: string;
  status: SessionStatus;
  stop_reason: StopReason | null;
  usage: Usage;
  created_at: string;
  updated_at: string;
}

/**
 * Why an Agent refused a call: machine reasons only. The gateway turns each into its wire
 * problem and text in one switch (src/api/sessions/agent-client.ts).
 */
export type AgentFailure =
  | { reason: "session_not_found" }
  | { reason: "tool_call_not_found" }
  | { reason: "session_exists" }
  /** A run is going (running, waiting or paused): a new one cannot start. */
  | { reason: "run_going" }
  /** `action` is not allowed while the session is `status`. */
  | { reason: "wrong_status"; action: "cancel" | "pause" | "resume"; status: SessionStatus }
  | { reason: "tool_call_not_waiting"; status: ToolCallStatus; expected: ToolCallStatus }
  /** Input or settings the gateway should have refused; `detail` is written for the caller. */
  | { reason: "invalid"; detail: string }
  /** The tenant index could not be reached for something that must not be skipped (handing over owed notifications); try again. */
  | { reason: "unavailable"; detail: string };
export type AgentFailureReason = AgentFailure["reason"];
export type AgentResult<T> = { ok: true; value: T } | ({ ok: false } & AgentFailure);

/** User input that starts a run: plain text or content blocks. */
export type RunInput = string | ContentBlock[];

/** One unit of work as the API shows it (see `GET /v1/sessions/{id}/steps`). */
export interface Step {
  seq: number;
  kind: UnitKind;
  started_at: string;
  ended_at: string;
  /** From the end of the unit before (or from when the run could go on) to this one's start. */
  queued_ms: number;
  duration_ms: number;
  /** Tokens of a model or summary unit; null for tool units. */
  input_tokens: number | null;
  output_tokens: number | null;
  outcome: UnitOutcome;
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}
