/**
 * Named limits with their units, and the per-tenant limit set. Platform defaults come
 * from `DEFAULT_LIMITS`; a tenant's overrides replace them; a session may only lower them.
 */
import { z } from "@hono/zod-openapi";

/** A model call that has not answered in this time is abandoned and retried. */
export const MODEL_CALL_TIMEOUT_MS = 110_000;
/**
 * Durable Object alarm handlers are cut off at 300 s. A tool unit starts no new call after
 * this long, so the slowest call it may still start (an idempotent webhook: 3 tries of 30 s,
 * about 92 s) ends in time; the remaining calls run in the next alarm.
 */
export const UNIT_BUDGET_MS = 180_000;
/**
 * Messages that may wait for the next runs of one session (`if_running: enqueue`); each is a
 * run of its own, so a longer queue is a batch job, not a conversation.
 */
export const MAX_QUEUED_MESSAGES = 20;
/** Short enough that a leaked URL token expires soon; a revoked key's tokens die within it. */
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
/** A failing model call is tried this many times in all before the run fails. */
export const MAX_ATTEMPTS = 5;
/** First retry delay; doubled on each further attempt, with jitter. */
export const RETRY_BASE_MS = 1_000;
/** No single backoff is longer than this, whatever `Retry-After` asks. */
export const RETRY_MAX_MS = 60_000;
/**
 * Answers not valid for a run's `output_schema` before the run fails with `invalid_output`. A
 * model that misses three times after being told what was wrong will not get there.
 */
export const MAX_INVALID_OUTPUTS = 3;

/** The longest reason a reviewer may give for denying a tool call, on every protocol that carries one (REST, chat, AG-UI). */
export const MAX_DENY_REASON_CHARS = 1_000;
/**
 * Images in one user message. Each is sent with every model call whose window holds it, and
 * providers cap a request's size (Anthropic: 32 MB), so a message is not a photo album.
 */
export const MAX_IMAGES_PER_INPUT = 8;
/**
 * The decoded bytes of one message's images together: the gateway holds them in memory while it
 * checks them and hands them to the session (a Worker has 128 MB).
 */
export const MAX_INPUT_IMAGE_BYTES = 16 * 1024 * 1024;
/**
 * The default `max_image_bytes`: the most the Anthropic Messages API takes in one image (5 MiB
 * of base64), so an image the platform accepts is one every provider accepts.
 */
export const DEFAULT_MAX_IMAGE_BYTES = (5 * 1024 * 1024 * 3) / 4;
/** The highest `max_image_bytes` a tenant can be given: OpenAI's limit per image. */
export const MAX_MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/**
 * The most one Durable Object SQLite value holds (2 MB). A message's content is saved as one
 * value, so no text in a session's history is longer, in UTF-16 units (each at least a byte).
 */
export const MAX_STORED_VALUE_BYTES = 2_000_000;

/**
 * The default `max_memory_bytes`: 1 GiB, a tenth of the store's 10 GB object. About 1 KB per item
 * of the benchmark's corpus (BENCHMARKS.md), so the default 100,000 typical items take a tenth of
 * it; and about 7,000 items of 64 KiB (152 KB each as counted), where `max_memory_items` alone let
 * 40,000 such writes fill the object.
 */
export const DEFAULT_MAX_MEMORY_BYTES = 1024 * 1024 * 1024;
/**
 * The highest `max_memory_bytes`: half the object's 10 GB, so that a migration that builds an
 * index again beside the old one (migrations 3 and 8 of the memory store) still has room.
 */
export const MAX_MAX_MEMORY_BYTES = 5 * 1024 * 1024 * 1024;

/** The highest `max_request_bytes` a tenant can be given; so no string in a request body is longer. */
export const MAX_MAX_REQUEST_BYTES = 100 * 1024 * 1024;
/**
 * The limits with no cap of their own take any safe integer, as every zod integer does; stated,
 * so the document and its clients know the bound the validator applies.
 */
const UNCAPPED = Number.MAX_SAFE_INTEGER;
/** A daily cost budget above this is no budget: a typo in the units. */
export const MAX_COST_USD_PER_DAY = 10_000_000;

/**
 * The highest tree limits a tenant can be given: the root keeps the ids of its tree's sessions in
 * one stored value (src/sessions/object/subagents/tree.ts), and 1,000 of them is about 40 KB.
 */
export const MAX_TREE_SESSIONS = 1_000;
export const MAX_TREE_MODEL_CALLS = 100_000;

export const LIMIT_NAMES = [
  "max_steps_per_run",
  "max_tokens_per_call",
  "max_tokens_per_session",
  "max_tool_output_chars",
  "max_concurrent_runs",
  "max_request_bytes",
  "requests_per_minute",
  "max_tokens_per_day",
  "max_image_bytes",
  "max_schedules",
  "caller_share_percent",
  "max_streams_per_session",
  "max_streams_per_tenant",
  "max_memory_items",
  "max_memory_bytes",
  "max_agent_depth",
  "max_subagents_per_run",
  "max_sessions_per_tree",
  "max_model_calls_per_tree",
  "max_cost_usd_per_day",
  "max_tokens_per_day_per_subject",
  "max_cost_usd_per_session",
  "end_user_tokens_per_minute",
  "end_user_requests_per_minute",
  "max_credentials_per_end_user",
  "max_credentials_per_tenant",
  "exports_per_minute",
] as const;

export const limitsSchema = z.object({
  max_steps_per_run: z.number().int().min(1).max(1000),
  max_tokens_per_call: z.number().int().min(1).max(1_000_000),
  max_tokens_per_session: z.number().int().min(1).max(UNCAPPED).openapi({
    description:
      "Tokens one session may spend over its life, its sub-agents included; past it the run waits in `waiting_budget` until a tenant admin raises it (`PATCH /v1/sessions/{id}`).",
  }),
  max_tool_output_chars: z.number().int().min(1).max(10_000_000),
  max_concurrent_runs: z.number().int().min(1).max(UNCAPPED),
  max_request_bytes: z.number().int().min(1024).max(MAX_MAX_REQUEST_BYTES),
  requests_per_minute: z.number().int().min(1).max(UNCAPPED),
  /** null: unlimited. */
  max_tokens_per_day: z.number().int().min(1).max(UNCAPPED).nullable(),
  /** The decoded size of one image in a user message. */
  max_image_bytes: z.number().int().min(1024).max(MAX_MAX_IMAGE_BYTES),
  /** Schedules a tenant may keep (paused and disabled ones count); more is a 409 until one is deleted. */
  max_schedules: z.number().int().min(0).max(100_000),
  /**
   * The part of `requests_per_minute` one API key or one JWT subject may use, so one caller
   * cannot take the whole window from the others; below 100 on purpose (see `callerRequestsPerMinute`).
   */
  caller_share_percent: z.number().int().min(1).max(99),
  /** Event streams (SSE and WebSocket) open at once on one session; one more is a 429. */
  max_streams_per_session: z.number().int().min(1).max(10_000),
  /** Event streams open at once across the tenant's sessions; one more is a 429. */
  max_streams_per_tenant: z.number().int().min(1).max(1_000_000),
  /** Memory items a tenant may keep (expired ones do not count); one more is a 409 until one is deleted. */
  max_memory_items: z.number().int().min(0).max(10_000_000),
  max_memory_bytes: z
    .number()
    .int()
    .min(0)
    .max(MAX_MAX_MEMORY_BYTES)
    .openapi({
      description:
        "Bytes a tenant's memory may take in storage: each item's value, its earlier versions kept, its part of the search index and its vector " +
        "(expired items until they are swept). A write that would take more is a 409; past it, only a write that leaves its item, kept versions included, no larger goes through " +
        "(the old value is kept as a version, so a smaller value is not enough): delete items to free bytes.",
    }),
  /** How deep sessions started by `agent` tools may nest: a top-level session is depth 0, its children 1. */
  max_agent_depth: z.number().int().min(0).max(10).openapi({
    description:
      "How deep sub-agents nest: a session a caller creates is at depth 0, its `agent` tools' children at 1. A call that would go deeper gets an error result.",
  }),
  /** Child sessions one run may start through `agent` tools; a call past it gets an error result. */
  max_subagents_per_run: z
    .number()
    .int()
    .min(0)
    .max(100)
    .openapi({ description: "Child sessions one run may start through `agent` tools; a call past it gets an error result." }),
  max_sessions_per_tree: z.number().int().min(1).max(MAX_TREE_SESSIONS).openapi({
    description:
      "Sessions one tree of sub-agents may hold, its root (the session a caller created) included; an `agent` call past it gets an error result.",
  }),
  max_model_calls_per_tree: z.number().int().min(1).max(MAX_TREE_MODEL_CALLS).openapi({
    description:
      "Model calls one tree of sub-agents may make, every session of it together; the session whose call would pass it ends `done` with `budget_limit`.",
  }),
  max_cost_usd_per_day: z
    .number()
    .min(0)
    .max(MAX_COST_USD_PER_DAY)
    .nullable()
    .openapi({
      description:
        "USD the tenant's sessions may spend per UTC day, priced by `MODEL_PRICES` (tokens of a model without a price count nothing); null: unlimited. " +
        "Past it a start is a 429 and a run going waits in `waiting_budget` until the budget is raised or the next UTC day.",
    }),
  max_tokens_per_day_per_subject: z.number().int().min(0).max(UNCAPPED).nullable().openapi({
    description:
      "Tokens the sessions of each `created_by` may spend per UTC day; null: unlimited. Past it the same as `max_cost_usd_per_day`.",
  }),
  max_cost_usd_per_session: z
    .number()
    .min(0)
    .max(MAX_COST_USD_PER_DAY)
    .nullable()
    .openapi({
      description:
        "USD one session may spend over its life, its sub-agents included, priced by `MODEL_PRICES`; null: unlimited. " +
        "Past it the run waits in `waiting_budget` until a tenant admin raises it (`PATCH /v1/sessions/{id}`).",
    }),
  end_user_tokens_per_minute: z.number().int().min(1).max(UNCAPPED).openapi({
    description:
      "End-user tokens the tenant may mint per minute (`POST /v1/auth/end-user-token`), all its backends together; one more is a 429 with `Retry-After`.",
  }),
  end_user_requests_per_minute: z.number().int().min(1).max(UNCAPPED).openapi({
    description:
      "Requests each end user's token may make per minute (at most the caller share of `requests_per_minute`); one more is a 429 with `Retry-After`.",
  }),
  max_credentials_per_end_user: z.number().int().min(0).max(10_000).openapi({
    description: "Credentials each end user may keep in the vault (`/v1/end-users/{subject}/credentials`); one more is a 409.",
  }),
  max_credentials_per_tenant: z.number().int().min(0).max(100_000).openapi({
    description: "The tenant's own credentials in the vault (`/v1/tenant/credentials`), end users' apart; one more is a 409.",
  }),
  exports_per_minute: z.number().int().min(1).max(UNCAPPED).openapi({
    description:
      "Session exports (`GET /v1/sessions/{id}/export`) the tenant may start per minute, all its callers together; one more is a 429 with `Retry-After`.",
  }),
});
export type Limits = z.infer<typeof limitsSchema>;
export const partialLimitsSchema = limitsSchema.partial();
export type PartialLimits = z.infer<typeof partialLimitsSchema>;

export const BUILTIN_DEFAULT_LIMITS: Limits = {
  max_steps_per_run: 20,
  max_tokens_per_call: 4096,
  max_tokens_per_session: 200_000,
  max_tool_output_chars: 8000,
  max_concurrent_runs: 10,
  max_request_bytes: 1024 * 1024,
  requests_per_minute: 600,
  max_tokens_per_day: null,
  max_image_bytes: DEFAULT_MAX_IMAGE_BYTES,
  max_schedules: 100,
  caller_share_percent: 50,
  // A console, a backend and a few browsers per session; each socket holds about 0.5 MiB of the
  // runtime's memory, so a tenant's default is a few hundred MiB at most.
  max_streams_per_session: 20,
  max_streams_per_tenant: 500,
  max_memory_items: 100_000,
  max_memory_bytes: DEFAULT_MAX_MEMORY_BYTES,
  // A chain of hand-offs deeper than three is a loop more often than a design.
  max_agent_depth: 3,
  max_subagents_per_run: 10,
  // Depth and fan-out multiply: at 3 and 10 one request grew 1,111 sessions and 2,222 model
  // calls in a minute. A tree is one task: fifty sessions and five hundred calls is a large one.
  max_sessions_per_tree: 50,
  max_model_calls_per_tree: 500,
  max_cost_usd_per_day: null,
  max_tokens_per_day_per_subject: null,
  max_cost_usd_per_session: null,
  // A backend mints one token per sign-in or refresh of a user: 120 a minute is a busy product's
  // peak, and bounds what a leaked minting key hands out before it is revoked.
  end_user_tokens_per_minute: 120,
  // An end user's token lives in a browser anyone may drive: with a key's half of the tenant's
  // window, two of them would lock out the backend and every other user. A person's chat page
  // makes a few requests a message; 60 a minute is a busy one.
  end_user_requests_per_minute: 60,
  // A person connects a handful of accounts; a tenant's own are one per service it calls.
  max_credentials_per_end_user: 50,
  max_credentials_per_tenant: 500,
  // An export reads and sends a whole session: a 4 MB one costs the isolate what hundreds of
  // small requests do. Ten a minute is a person saving a few sessions, or a backup job's pace.
  exports_per_minute: 10,
};

/**
 * A caller's own window (an API key, or a JWT subject): its share of the tenant's
 * `requests_per_minute`, at least one request. Half by default, so a key that floods leaves the
 * other half to everyone else; a tenant whose single backend needs more raises the share (at
 * most 99, so some room always stays for the others).
 */
export function callerRequestsPerMinute(limits: Pick<Limits, "requests_per_minute" | "caller_share_percent">): number {
  return Math.max(1, Math.floor((limits.requests_per_minute * limits.caller_share_percent) / 100));
}

/**
 * Requests a minute each admin may always make on the paths that stop abuse (API keys
 * create, list and revoke; a tenant's suspension), whatever the tenant's other windows hold:
 * they are counted apart, so a flooding key cannot lock its admin out of revoking it.
 */
export const ADMIN_REQUESTS_PER_MINUTE = 60;

/**
 * The part of a tenant's `requests_per_minute` kept for its admins (principals holding
 * `tenant:admin`): every other caller is admitted only while the tenant's window holds more than
 * this, so callers that flood it together still leave the admins room to read the audit log,
 * cancel sessions in bulk and change settings. Admins draw on the whole window.
 */
export const ADMIN_RESERVED_PERCENT = 10;

/** The requests of the tenant's window no caller but an admin can use: 10% (rounded down; none below 10 a minute). */
export function adminReservedRequests(limits: Pick<Limits, "requests_per_minute">): number {
  return Math.floor((limits.requests_per_minute * ADMIN_RESERVED_PERCENT) / 100);
}

/**
 * The lower of two limit sets, name by name (`null`, unlimited, is the highest). A running
 * session keeps the limits it was created with, capped by its tenant's current ones whenever
 * a run starts, so lowering a tenant's limits reaches its existing sessions.
 */
export function capLimits(limits: Limits, cap: Limits): Limits {
  const capped = { ...limits };
  for (const name of LIMIT_NAMES) {
    // A session stored before a limit existed has no value for it: the tenant's applies.
    const a = limits[name] as number | null | undefined;
    const b = cap[name];
    (capped as Record<string, number | null>)[name] = a === null || a === undefined ? b : b === null ? a : Math.min(a, b);
  }
  return capped;
}

/**
 * The wall-clock limit of a `run_code` run in the interpreter, where the clock moves while code
 * runs (wrangler dev, tests): the deployed CPU limit, since a run holds the one thread that every
 * tenant's objects share there until it ends. At 2 s, three sessions running code at once kept
 * another tenant's requests waiting 2 to 4 s.
 */
export const RUN_CODE_INTERPRETER_TIMEOUT_MS = 300;

/**
 * Sub-agent sessions one tenant may be starting at once in an isolate (src/sessions/child-starts.ts):
 * each start makes a session object and its storage, 60 to 300 ms of the thread every tenant
 * shares there (measured), and a tree's hundred starts at once kept another tenant waiting 11 s.
 */
export const MAX_CHILD_STARTS_IN_FLIGHT = 1;
/**
 * The part of an isolate's time one tenant's sub-agent starts may hold: after a start, its next
 * one waits long enough for the rest to go to other work. Half: with two starts at once and no
 * gap, another tenant's requests still waited 0.9 to 1.6 s at p99 behind a tree's starts.
 */
export const CHILD_START_SHARE = 0.5;
/** How often a start waiting its turn looks again. */
export const CHILD_START_POLL_MS = 25;

/**
 * Messages in one JSON-RPC batch on `/v1/mcp`; a larger batch is a 413. MCP clients send one
 * message a request (the 2025-06-18 revision dropped batches), and each message is work done
 * while the request is open, paid for by one request of the tenant's rate.
 */
export const MAX_MCP_BATCH_MESSAGES = 32;

/** The shortest retention a tenant may set: a day, so a session never vanishes mid-conversation. */
export const MIN_SESSION_RETENTION_DAYS = 1;
/** Ten years: longer is "keep", which is null. */
export const MAX_SESSION_RETENTION_DAYS = 3650;
/** A retention day, in ms (`Config.retentionDayMs` shortens it in tests only). */
export const DAY_MS = 24 * 60 * 60 * 1000;
/** Sessions one sweep pass erases at most, so an alarm stays short; the next pass follows at once. */
export const RETENTION_SWEEP_BATCH = 25;
/**
 * The least time between two sweeps that found nothing more to erase now (in retention days'
 * scale): a session the index still shows as expired but its object keeps is asked again no sooner.
 */
export const RETENTION_RETRY_MS = 60 * 60 * 1000;

/**
 * How long a new session whose admission the tenant index has not answered (a crash, or an index
 * that failed the call) waits before it asks again; it runs nothing meanwhile. Long after any
 * create's own answer, short enough that a session whose create crashed is settled soon.
 */
export const CREATE_ADMISSION_RETRY_MS = 30_000;
/**
 * The wake written with a new session's admission owed: after a crash in the ask it settles the
 * admission this soon; on a live object whose ask is still under way it finds the ask not due and waits.
 */
export const CREATE_ADMISSION_CRASH_WAKE_MS = 1_000;
