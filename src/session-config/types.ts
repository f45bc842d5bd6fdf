/**
 * The shapes a session object keeps and returns: content blocks, messages, tool calls, run state,
 * and the result type of its RPC surface. Content blocks follow the Anthropic Messages
 * format, which is the platform's own storage format; other providers translate.
 */
import type { Limits } from "../limits";
import type { MemoryGrant } from "./memory-namespace";
import type { TraceRequest } from "./trace-types";

/** Every session status: the one list the types, the API schemas and the tenant index use. */
export const SESSION_STATUSES = [
  "idle",
  "queued",
  "running",
  "waiting_approval",
  "waiting_tool_output",
  "waiting_subagents",
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
  "paused",
];
/**
 * The statuses that hold one of the tenant's run slots. A session waiting for a person, a
 * client, a resume or a free slot holds none.
 */
export const SLOT_STATUSES: readonly SessionStatus[] = ["running"];
export const FINAL_STATUSES: readonly SessionStatus[] = ["done", "failed", "cancelled"];
/** A run waits for someone: a person (an approval), a client (a tool's output), or its child sessions. It holds no run slot. */
export const WAITING_STATUSES: readonly SessionStatus[] = ["waiting_approval", "waiting_tool_output", "waiting_subagents"];

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
/** The image types every provider the platform speaks to accepts. */
export const IMAGE_MEDIA_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

/**
 * An image in the history: a reference to the bytes the session stored once (`images`, see
 * object/store/images.ts), never the bytes themselves, so a message, its copies and its events
 * stay small. `url` is where the platform fetched it from, when the caller gave a URL.
 */
export interface ImageBlock {
  type: "image";
  source: { type: "stored"; image_id: string; media_type: ImageMediaType; size_bytes: number; width: number; height: number; url?: string };
}
/**
 * The model's reasoning, as its provider gave it, on the assistant message it belongs to:
 * Anthropic's `thinking` with its `signature` (sent back unchanged, as the API requires within a
 * tool loop), or a Chat Completions server's `reasoning_content` / `reasoning` (no signature).
 * Never answer text: no text of the answer is read from it.
 */
export interface ThinkingBlock {
  type: "thinking";
  thinking: string;
  signature?: string;
}
/** Reasoning the provider encrypted (Anthropic's `redacted_thinking`): kept and sent back as given. */
export interface RedactedThinkingBlock {
  type: "redacted_thinking";
  data: string;
}
export type ReasoningBlock = ThinkingBlock | RedactedThinkingBlock;
export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock | ImageBlock | ThinkingBlock | RedactedThinkingBlock;

export function isReasoningBlock(block: { type: string }): block is ReasoningBlock {
  return block.type === "thinking" || block.type === "redacted_thinking";
}

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

/**
 * Token counts of a session (or a tenant's day). Providers that cache prompts report the cached
 * part apart: `input_tokens` is the input neither read from nor written to the cache, so the
 * whole input of a call is `input_tokens + cache_read_tokens + cache_write_tokens`.
 */
export interface Usage {
  steps: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  /**
   * Of `output_tokens`, those the model spent reasoning, where the provider reports them apart
   * (Chat Completions' `completion_tokens_details.reasoning_tokens`); absent until one did.
   */
  reasoning_tokens?: number;
}

/** Every token a usage counts, as every token limit counts them. */
export function totalTokens(usage: Omit<Usage, "steps">): number {
  return usage.input_tokens + usage.output_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
}

/** Usage plus one call's, `steps` more model steps (0 for a summary or a discarded answer). */
export function addUsage(usage: Usage, call: Omit<Usage, "steps">, steps: number): Usage {
  return {
    steps: usage.steps + steps,
    input_tokens: usage.input_tokens + call.input_tokens,
    output_tokens: usage.output_tokens + call.output_tokens,
    cache_read_tokens: (usage.cache_read_tokens ?? 0) + call.cache_read_tokens,
    cache_write_tokens: (usage.cache_write_tokens ?? 0) + call.cache_write_tokens,
    // Present once a provider reported it apart, even as 0.
    ...(usage.reasoning_tokens !== undefined || call.reasoning_tokens !== undefined
      ? { reasoning_tokens: (usage.reasoning_tokens ?? 0) + (call.reasoning_tokens ?? 0) }
      : {}),
  };
}

export const EMPTY_USAGE: Usage = { steps: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 };

/** How the history is fitted to the model's input before each call (see src/sessions/object/context/). */
export const CONTEXT_STRATEGIES = ["auto", "last_messages", "summary"] as const;
export type ContextStrategy = (typeof CONTEXT_STRATEGIES)[number];

export interface ContextSettings {
  strategy: ContextStrategy;
  /** The input budget in tokens; absent: the model's known context size less room for the answer. */
  max_input_tokens?: number;
  /** `last_messages` only: how many of the newest messages are sent besides the task. */
  last_messages?: number;
}

/** How hard a reasoning model thinks; each provider maps it its own way (see object/model/reasoning.ts). */
export const REASONING_EFFORTS = ["low", "medium", "high"] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/**
 * A session's reasoning (`reasoning`): Anthropic's extended thinking with a token budget (given,
 * or from the effort), Chat Completions' `reasoning_effort`. `{}` turns it on with the defaults.
 */
export interface ReasoningSettings {
  effort?: ReasoningEffort;
  budget_tokens?: number;
}

/** A JSON Schema a run's final answer must be valid for (`output_schema`); its top level is an object. */
export type OutputSchema = Record<string, unknown>;

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
    }
  | McpToolSpec
  | AgentToolSpec;

/**
 * A tool that hands its input to another agent: each call starts a child session of `agent`
 * (`agt_…`, `agt_…@7`, `agt_…@alias`, resolved when the call is made) and its end is the result.
 */
export interface AgentToolSpec {
  type: "agent";
  name: string;
  description: string;
  agent: string;
  requires_approval?: boolean;
  approval_timeout_seconds?: number;
}

/** The session and the tool call that started a child session. */
export interface ParentLink {
  session_id: string;
  tool_call_id: string;
}

/**
 * A remote MCP server (Streamable HTTP): its tools are listed when a run starts and offered as
 * `<name>__<tool>`. `headers` (credentials) are sent to the server only: every response masks
 * their values.
 */
export interface McpToolSpec {
  type: "mcp";
  name: string;
  url: string;
  allowed_tools?: string[];
  headers?: Record<string, string>;
  requires_approval?: boolean;
  /** Applies to each tool the server offers. */
  approval_timeout_seconds?: number;
}

/** The agent version a session was created from (src/agents/). */
export interface AgentPin {
  id: string;
  version: number;
}

/** What the gateway gives a session object when it creates the session; fixed for its life. */
export interface SessionInit {
  id: string;
  tenant_id: string;
  created_by: string;
  model: string;
  system: string | null;
  tools: ToolSpec[];
  /** The effective limits (platform ← tenant ← session), resolved by the gateway. */
  limits: Limits;
  /** Null for sessions created before context settings existed: they use `auto`. */
  context: ContextSettings | null;
  /** The schema of the answer of every run whose message names none; absent for sessions created before it existed. */
  output_schema?: OutputSchema | null;
  metadata: Record<string, string> | null;
  /**
   * Where this session's own status notifications go (every type), besides the tenant's
   * endpoints. Absent in sessions created before notify URLs existed: read as null.
   */
  notify_url?: string | null;
  /** The agent version the session was created from; absent in sessions created before agents existed: read as null. */
  agent?: AgentPin | null;
  /**
   * The name in that version's definition, learned when the version was resolved, so a run's
   * trace is named after the agent without asking the agent store. Absent in sessions created
   * before it was kept (and null without an agent): unknown, and traces use the agent id. Kept, never shown.
   */
  agent_name?: string | null;
  /** The session and the last message a fork copied; absent (null) for a session that is not a fork. */
  forked_from?: ForkOrigin | null;
  /** The memory namespaces its model may read and write, templates filled; absent in sessions created before memory existed: read as null. */
  memory?: MemoryGrant | null;
  /** The model's reasoning settings; absent in sessions created before they existed: read as null (none asked for). */
  reasoning?: ReasoningSettings | null;
  /** The session whose `agent` tool call started this one; absent (null) for a session a caller created. */
  parent?: ParentLink | null;
  /** How many parents it has: 0 for a session a caller created. Kept, never shown. */
  depth?: number;
  /** The API key that created it (a child: its parent's); null for a JWT. Usage and key budgets count by it. Kept, never shown. */
  api_key_id?: string | null;
}

export interface ForkOrigin {
  session_id: string;
  seq: number;
}

export interface Session extends Omit<
  SessionInit,
  "context" | "output_schema" | "notify_url" | "agent" | "agent_name" | "forked_from" | "memory" | "reasoning" | "parent" | "depth"
> {
  agent: AgentPin | null;
  parent: ParentLink | null;
  memory: MemoryGrant | null;
  reasoning: ReasoningSettings | null;
  forked_from: ForkOrigin | null;
  context: ContextSettings;
  /** The current (or last) run's schema; before any run, the session's own. */
  output_schema: OutputSchema | null;
  /** The parsed answer of the last run when it ended `done` with a valid one; else null. */
  output: unknown;
  notify_url: string | null;
  status: SessionStatus;
  stop_reason: StopReason | null;
  error: string | null;
  /** `subagents`: the usage of every session its `agent` tools started, and theirs, summed. */
  usage: Usage & { subagents: Usage };
  /** Messages posted with `if_running: enqueue` that wait to start the next runs. */
  queued_messages: number;
  /** Its first input's text, cut (`../title.ts`); null before any input. */
  title: string | null;
  created_at: string;
  updated_at: string;
}

/** The compact row a tenant index keeps for each session. */
export interface SessionSummary {
  id: string;
  created_by: string;
  /** Its first input's text, cut; null before any input, and for a session that has not reported since titles existed. */
  title: string | null;
  agent: AgentPin | null;
  /** The session whose `agent` tool call started it; null for one a caller created. */
  parent_session_id: string | null;
  status: SessionStatus;
  stop_reason: StopReason | null;
  usage: Usage;
  created_at: string;
  updated_at: string;
}

/**
 * Why a session object refused a call: machine reasons only. The gateway turns each into its wire
 * problem and text in one switch (src/sessions/client.ts).
 */
export type SessionFailure =
  | { reason: "session_not_found" }
  | { reason: "tool_call_not_found" }
  | { reason: "session_exists" }
  /** A run is going (running, waiting or paused): a new one cannot start. */
  | { reason: "run_going" }
  /** `enqueue` or `interrupt` asked of a session with no run going: start a run instead. */
  | { reason: "run_not_going" }
  /** `enqueue` when `MAX_QUEUED_MESSAGES` already wait. */
  | { reason: "queue_full"; max: number }
  /** `action` is not allowed while the session is `status`. */
  | { reason: "wrong_status"; action: "cancel" | "pause" | "resume"; status: SessionStatus }
  | { reason: "tool_call_not_waiting"; status: ToolCallStatus; expected: ToolCallStatus }
  /**
   * An event stream the tenant index would not note: its credential's key was revoked or
   * expired, the tenant is suspended, or the index could not be reached.
   */
  | { reason: "stream_refused"; why: "credentials" | "suspended" | "unavailable" }
  /** `max` event streams are open on the session or across the tenant; `retryAfterSeconds` when a retry time is known. */
  | { reason: "stream_limit"; scope: "session" | "tenant"; max: number; retryAfterSeconds: number | null }
  /** Input or settings the gateway should have refused; `detail` is written for the caller. */
  | { reason: "invalid"; detail: string; field?: string }
  /** The tenant index could not be reached for something that must not be skipped (handing over owed notifications); try again. */
  | { reason: "unavailable"; detail: string };
export type SessionResult<T> = { ok: true; value: T } | ({ ok: false } & SessionFailure);

/**
 * An image as the gateway hands it to the session object: fetched or decoded and checked, its bytes in
 * hand. The session object checks it again, stores it once and keeps only an `ImageBlock` in the history.
 */
export interface ImageUpload {
  type: "image";
  media_type: ImageMediaType;
  data: Uint8Array;
  /** Where the platform fetched it from; null for an image sent in the body. */
  url: string | null;
}

/** User input that starts a run: plain text, or text blocks and images. */
export type RunInput = string | (TextBlock | ImageUpload)[];

/**
 * What a message asks of its run besides its input. `output_schema`: the run's answer must be
 * JSON valid for it; null asks for a free answer; absent takes the session's.
 */
export interface RunOptions {
  output_schema?: OutputSchema | null;
  /** The run's tracing, set by the gateway when the tenant exports traces (src/traces/). */
  trace?: TraceRequest;
}

/** The kinds of unit of work; each has its runner in object/loop/units.ts, chosen by object/loop/next-unit.ts. */
export const UNIT_KINDS = ["model", "tools", "summary", "discover"] as const;
export type UnitKind = (typeof UNIT_KINDS)[number];

/**
 * How a unit ended: `ok`; `retry` (a failure that will be tried again after a backoff);
 * `failed` (the run failed); `discarded` (a cancel, pause or restart made its result stale);
 * `partial` (the unit stopped early to fit its time budget and the rest runs next); `error`
 * (an unexpected fault, counted like a retry).
 */
export const UNIT_OUTCOMES = ["ok", "retry", "failed", "discarded", "partial", "error"] as const;
export type UnitOutcome = (typeof UNIT_OUTCOMES)[number];

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
