/**
 * The shapes a session keeps and returns: its settings, tools, init, state, summary and the result
 * type of its RPC surface. Statuses (statuses.ts) and content (content.ts) are re-exported, so
 * this stays the one module the session's types are imported from.
 */
import type { ShardRef } from "../shared/shard-layout";
import type { Limits } from "../limits";
import type { MemoryGrant } from "./memory-namespace";
import type { TraceRequest } from "./trace-types";
import type { RedactionSettings } from "../shared/redaction/settings";
import type { BudgetWait, SessionStatus, StopReason } from "./statuses";
import { PROVIDER_TOOL_NAMES, type ProviderToolName } from "../models/catalog";
import type { TextBlock, ImageMediaType, ImageBlock, ToolCallStatus, Usage } from "./content";

export * from "./statuses";
export * from "./content";
import type { PolicySpec } from "./policy-spec";

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

/** How hard a reasoning model thinks; each provider maps it its own way (see reasoning.ts). */
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
      auth?: ToolAuth;
      requires_approval?: boolean;
      approval_timeout_seconds?: number;
      at_most_once?: boolean;
      /** Absent: trusted (src/policy/trust.ts). */
      trust?: "trusted" | "untrusted";
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
  | AgentToolSpec
  | A2aToolSpec
  | ProviderToolSpec;

export { PROVIDER_TOOL_NAMES, type ProviderToolName };

/**
 * A tool the provider runs inside its own answer (Anthropic's server tools), passed to it with
 * these options; the platform never runs it, so no approval applies. `user_location` is for
 * `web_search`, `citations` and `max_content_tokens` for `web_fetch`; `code_execution` takes none.
 */
export interface ProviderToolSpec {
  type: "provider";
  name: ProviderToolName;
  max_uses?: number;
  allowed_domains?: string[];
  blocked_domains?: string[];
  user_location?: { type: "approximate"; city?: string; region?: string; country?: string; timezone?: string };
  citations?: { enabled: boolean };
  max_content_tokens?: number;
  requires_approval?: undefined;
  approval_timeout_seconds?: undefined;
}

/**
 * The vault credential a webhook or MCP tool sends: a name, looked up at each call for the
 * session's end user, else the tenant (src/egress/credentials.ts). Not a secret: shown as given.
 */
export interface ToolAuth {
  credential: string;
}

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

/**
 * A remote agent reached over the Agent2Agent protocol: its card (`agent_card_url`) names the
 * JSON-RPC endpoint each call sends a message to. At most once unless `idempotent`.
 */
export interface A2aToolSpec {
  type: "a2a";
  name: string;
  description: string;
  agent_card_url: string;
  auth?: ToolAuth;
  requires_approval?: boolean;
  approval_timeout_seconds?: number;
  idempotent?: boolean;
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
  auth?: ToolAuth;
  requires_approval?: boolean;
  /** Applies to each tool the server offers. */
  approval_timeout_seconds?: number;
}

/** The agent version a session was created from (src/agents/). */
export interface AgentPin {
  id: string;
  version: number;
  /** Set when the session came from an alias that carried a canary: the alias, and whether it took the canary's arm. */
  alias?: string;
  canary?: boolean;
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
  /** The tool policy of its agent version (or its create body), judged beside the tenant's; absent in sessions created before policies: none. */
  policy?: PolicySpec | null;
  /** How many parents it has: 0 for a session a caller created. Kept, never shown. */
  depth?: number;
  /** The API key that created it (a child: its parent's); null for a JWT. Usage and key budgets count by it. Kept, never shown. */
  api_key_id?: string | null;
  /**
   * A child session's root: the session a caller created at the top of its tree, which keeps the
   * tree's budget (`max_sessions_per_tree`, `max_model_calls_per_tree`). Absent for a root, and in
   * children created before tree budgets: those count against none. Kept, never shown.
   */
  root_session_id?: string;
  /**
   * The tenant shard that keeps its row, usage and run slot (src/tenants/shards/); absent or null:
   * the tenant index. Fixed at creation (a child: its parent's). Kept, never shown.
   */
  shard?: ShardRef | null;
}

/** A sub-agent tree's count, kept by its root: its sessions (the root included) and the model calls of all of them. */
export interface TreeCount {
  sessions: number;
  model_calls: number;
}

export interface ForkOrigin {
  session_id: string;
  seq: number;
}

export interface Session extends Omit<
  SessionInit,
  | "context"
  | "output_schema"
  | "notify_url"
  | "agent"
  | "agent_name"
  | "forked_from"
  | "memory"
  | "reasoning"
  | "parent"
  | "depth"
  | "root_session_id"
  | "shard"
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
  /** The last run's final assistant text when it ended `done`; else null. */
  answer: string | null;
  /** USD of this session's tokens and its descendants' (as last reported), at its model's price; null without a price. */
  cost_usd: number | null;
  notify_url: string | null;
  status: SessionStatus;
  stop_reason: StopReason | null;
  error: string | null;
  /** `subagents`: the usage of every session its `agent` tools started, and theirs, summed. */
  usage: Usage & { subagents: Usage };
  /** Messages posted with `if_running: enqueue` that wait to start the next runs. */
  queued_messages: number;
  /**
   * While `waiting_budget`: the budget the run waits on (`session_tokens`, `session_cost`, `tenant_tokens`,
   * `tenant_cost`, `subject_tokens`, `key_tokens`) and, for a daily one, when it renews; null otherwise.
   */
  budget_wait: { budget: BudgetWait; resumes_at: string | null } | null;
  /** A root session's tree count (itself and the sessions its sub-agents started); null for a child session, whose root keeps it. */
  tree: TreeCount | null;
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
  /** A call the tool policy held is decided by a tenant admin, not by whoever owns the session. */
  | { reason: "decision_needs_admin" }
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
  /** The tenant's redaction when the run started (src/shared/redaction/): its input, tool outputs and answers are redacted by it. */
  redaction?: RedactionSettings | null;
  /** The run starts tainted (src/policy/trust.ts): a child agent's, started from a tainted run of its parent. */
  tainted?: boolean;
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
