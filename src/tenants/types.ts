/**
 * The shapes the tenant objects take and return over RPC (see the agreed interfaces), in one
 * place so the gateway and the session object can import them without importing the classes.
 */
import type { ShardLayout } from "../shared/shard-layout";
import type { Jurisdiction } from "../objects";
import type { AgentPin, SessionStatus, SessionSummary } from "../session-config/types";
import type { ApiKeyRecord } from "../auth/api-keys";
import type { Limits, PartialLimits } from "../limits";
import type { TracesSettings } from "../session-config/trace-types";
import type { RedactionSettings } from "../shared/redaction/settings";
import type { BudgetName, Spend } from "../usage/budgets";

export type Admission =
  /**
   * `settings` and `models` ride along so the gateway has them without asking again. `models`:
   * the models the tenant narrowed its sessions to; absent when it did not narrow them.
   */
  | {
      ok: true;
      limits: Limits;
      suspended: false;
      settings: TenantSettings;
      models?: string[];
      /** The layout a session created under this admission is placed by (src/shared/shard-layout.ts). */
      shards: ShardLayout;
      rate: RateReport;
      /** For an end user's request: when its tokens were last revoked (epoch ms); absent when never. */
      endUserRevokedBefore?: number;
    }
  | { ok: false; code: "suspended" }
  /** The tenant was deleted, or its deletion has begun. */
  | { ok: false; code: "deleted" }
  /** `shards`: as in an admission, so the gateway learns where the tenant's requests are counted from a refusal too. */
  | { ok: false; code: "rate_limited"; retryAfterSeconds: number; rate: RateReport; shards: ShardLayout };

/** A rate window as a client is told of it (the `RateLimit-Policy` header field). */
export interface RatePolicy {
  name: string;
  /** Requests the window admits. */
  quota: number;
  windowSeconds: number;
}

/** The windows a request was counted in, and the one closest to running out (the `RateLimit` header field). */
export interface RateReport {
  policies: RatePolicy[];
  current: { name: string; remaining: number; resetSeconds: number };
}

/**
 * What a request is, as far as counting it goes (see admission.ts): an interactive request
 * (absent), one on the paths that stop abuse, which an admin may always make a few of
 * (`key_management`: API keys create, list, revoke; `suspension`: suspend, unsuspend), or a
 * schedule's firing, counted apart from interactive requests; the minting of an end user's token
 * and a session's export are interactive, and counted in a window of their own besides.
 */
export type RequestKind = "key_management" | "suspension" | "firing" | "end_user_token" | "export";

export interface AdmitRequestInput {
  /** Who is counted: the API key id or the JWT subject. */
  bucket: string;
  now: number;
  kind?: RequestKind;
  /**
   * The caller's scopes, which decide whether a key-management or suspension request is an
   * admin's. Not needed by `admitApiKey`, which reads them from the key's record.
   */
  scopes?: string[];
  /** An end user's subject: the answer then carries its revocation cut-off, so no second call is needed. */
  endUser?: string;
}

export interface AdmitApiKeyInput extends AdmitRequestInput {
  /** `hashApiKeySecret` of the secret presented with the key. */
  secretHash: string;
}

/**
 * A key's lookup and, when the key stands (right secret, neither revoked nor expired at `now`),
 * the request's admission from the same call; `admission` is null when the key does not stand.
 */
export interface ApiKeyAdmission {
  record: ApiKeyRecord | null;
  admission: Admission | null;
}

export interface TenantConfig {
  tenant_id: string;
  suspended: boolean;
  limit_overrides: PartialLimits;
  effective_limits: Limits;
  /** The models its sessions may choose, narrowing the platform's `MODELS`; null: not narrowed. */
  models: string[] | null;
  /** How many shards its new sessions are spread over (1: the index holds them). */
  shards: number;
  /** When this tenant's index was first used. */
  created_at: string;
}

/** What the session object reports on every status or usage change; `revision` increases each time. */
export type SessionReport = Omit<SessionSummary, "agent" | "parent_session_id" | "title"> & {
  /** Absent from session objects of code before titles existed: not known yet. */
  title?: string | null;
  /** The session's metadata, for listing by it; absent from session objects of code before that: none indexed. */
  metadata?: Record<string, string> | null;
  /** Absent from session objects of code before agents existed: none. */
  agent?: AgentPin | null;
  /** The session whose `agent` tool call started it; absent from session objects of code before sub-agents: none. */
  parent_session_id?: string | null;
  /** The session's model; absent from session objects of code before usage rollups: not known. */
  model?: string;
  /** The API key that created the session; null for a JWT, absent from code before usage rollups. */
  api_key_id?: string | null;
  /** Runs started over the session's life; absent from code before usage rollups. */
  runs?: number;
  /** The budget a `waiting_budget` session waits on (usage/budgets.ts); null otherwise, absent from code before budgets paused. */
  budget_wait?: string | null;
  /**
   * Which daily budgets of the session's own limits it judges by (they may be set where the tenant
   * has none); absent from code before them: both, so the answer reads every part.
   */
  daily_budgets?: { cost: boolean; subject: boolean };
  revision: number;
};

export interface SessionFilter {
  status?: SessionStatus | null;
  created_by?: string | null;
  /** Only sessions created from this agent (any version). */
  agent_id?: string | null;
  /** Only the child sessions this session's `agent` tool calls started. */
  parent_session_id?: string | null;
  /** Only sessions whose metadata holds every one of these entries. */
  metadata?: Record<string, string> | null;
}

export interface ListSessionsInput extends SessionFilter {
  limit: number;
  cursor?: string | null;
}

export interface PageInput {
  limit: number;
  cursor?: string | null;
}

export type RunSlot = { ok: true } | { ok: false; code: "busy"; retryAfterSeconds: number } | { ok: false; code: "suspended" };

export interface AdmitRunInput {
  sessionId: string;
  maxConcurrent: number;
  /** The tenant's daily token budget; null for none. */
  maxTokensPerDay: number | null;
  /** The budgets below it (usage/budgets.ts); absent from callers of code before them: none. */
  maxCostUsdPerDay?: number | null;
  maxTokensPerDayPerSubject?: number | null;
  /** Whose run it is, for the per-subject budget, and the API key it comes through ('' or absent: none). */
  createdBy?: string;
  apiKeyId?: string;
  /**
   * The run's worst case in tokens (its session's `max_tokens_per_session`), held against the
   * daily token budgets until it ends (budget-reservations.ts); absent from code before it: none.
   */
  reserveTokens?: number;
  /** A session not made yet that the gateway placed on the index (a fork): admitted on the index's slots, not looked for on shards. */
  newSession?: boolean;
  now: number;
}

/**
 * A slot, or a daily budget used up until the next UTC midnight (`budget`: which one; absent: the
 * tenant's tokens). `held`: spend alone is under it, and the reservations of runs going hold the rest
 * (budget-reservations.ts), so the retry is soon, as a busy slot's is.
 */
export type RunAdmission = RunSlot | { ok: false; code: "budget_used"; retryAfterSeconds: number; budget?: BudgetName; held?: true };

/** What a new run is admitted against: the tenant's limits the request was admitted with. */
export type AdmissionLimits = Pick<
  AdmitRunInput,
  "maxConcurrent" | "maxTokensPerDay" | "maxCostUsdPerDay" | "maxTokensPerDayPerSubject" | "reserveTokens"
>;

/** A new session's admission (`admitSession`): refused as `admitRun` refuses, or admitted with its first report acknowledged. */
export type SessionAdmission = Exclude<RunAdmission, { ok: true }> | { ok: true; ack: ReportAck };

/** The answer to a session's report: whether it was applied, and whether its tenant is suspended. */
export interface ReportAck {
  applied: boolean;
  /** A suspended tenant's session cancels itself: this closes the race with a start admitted just before. */
  suspended: boolean;
  /** The tenant's tokens today (UTC), so a run stops at the daily budget without asking again. */
  tokens_today: number;
  /**
   * Today's spending the session's other budgets count (its creator's and its key's tokens, the
   * tenant's cost), and its key's daily budget; absent from an index of code before them. A part
   * that no budget of the tenant (or of the key) counts now is 0, not read.
   */
  spend?: Spend & { key_max_tokens_per_day: number | null };
  /** Whether the notifications sent with the report were taken; absent when none were sent. */
  notifications_taken?: boolean;
  /**
   * The tenant's tool-policy version (0: none ever set), so a session object's copy is known
   * current without asking (`currentPolicy`); absent from an index of code before it.
   */
  policy_version?: number;
}

export interface UsageRollupInput {
  from: string;
  to: string;
  /** Names of `USAGE_DIMENSIONS` (usage-rollup.ts), checked there. */
  group_by: readonly string[];
}

export interface UsageDay {
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  steps: number;
  sessions_created: number;
}

export interface UsageInput {
  /** How many UTC days back, today included. */
  days: number;
  /** The clock reading that defines "today"; defaults to the object's clock. */
  now?: number;
}

export type StatusCounts = Record<SessionStatus, number>;

export interface SigningSecret {
  secret: string;
  created_at: string;
  /** Until then the secret it replaced still signs too; null when there is none. */
  previous_expires_at: string | null;
}

/** What the session object needs to send a webhook call: the secrets to sign with and where it may go. */
export interface CallSigning {
  /** Newest first: the current secret, then the previous one while its grace period lasts. */
  secrets: string[];
  webhook_origins: string[] | null;
}

export interface TenantSettings {
  /** Normalized origins webhook tools may use; null: any origin the URL guard allows. */
  webhook_origins: string[] | null;
  /** Days a session is kept after its last change (src/tenants/retention.ts); null: the platform default. */
  session_retention_days: number | null;
  /** Where the runs' traces are exported; null: nowhere. Absent in settings stored before traces: read as null. */
  traces: TracesSettings | null;
  /** What is redacted before it is stored or sent to a model (src/shared/redaction/); null, or absent in older settings: nothing. */
  redaction?: RedactionSettings | null;
}

export interface BeginIdempotentInput {
  /** The principal's subject and the route, so keys of different callers never meet. */
  scope: string;
  key: string;
  bodyHash: string;
  now: number;
}

export type IdempotencyBegin =
  { state: "new" } | { state: "replay"; status: number; body: unknown } | { state: "conflict" } | { state: "in_progress" };

export interface CompleteIdempotentInput {
  scope: string;
  key: string;
  status: number;
  /** Any JSON value; a replay returns it as given. */
  body: unknown;
  now: number;
}

export interface ReleaseIdempotentInput {
  scope: string;
  key: string;
}

/** Filters of a status-webhook endpoint's delivery log. */
export interface DeliveryListInput extends PageInput {
  status?: "pending" | "succeeded" | "failed" | null;
}

export type { NewNotificationEndpoint } from "../notifications/endpoint-store";

export interface CancelResult {
  cancelled: number;
}

export interface TenantEntry {
  tenant_id: string;
  created_at: string;
  /** Where its objects live; null: anywhere. */
  jurisdiction: Jurisdiction | null;
}

/** A stream the session object is opening, for the index to note (see event-streams.ts). */
export interface NoteStreamInput {
  sessionId: string;
  /** The stream's own id, given by its session object: its row goes when the stream closes. */
  streamId: string;
  /** The API key behind the stream's credential; null for other JWTs. */
  keyId: string | null;
  /** The stream's deadline, epoch ms. */
  expiresAt: number;
  now: number;
}

export type StreamNote =
  /** `expiresAt`: the stream's deadline, brought forward to its API key's expiry when that comes first. */
  | { ok: true; expiresAt: number }
  | { ok: false; reason: "credentials" | "suspended" }
  /** The tenant has `max` streams open; `retryAfterSeconds` until the count may have changed. */
  | { ok: false; reason: "limit"; max: number; retryAfterSeconds: number };
