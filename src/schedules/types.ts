/**
 * The shapes the Scheduler takes and returns over RPC, in one place so the gateway can import
 * them without importing the class.
 */
import type { Scope } from "../auth/principal";
import type { ProblemCode } from "../problems";
import type { AddMessageRequest, CreateSessionRequest } from "../session-config/request-schemas";

export const SCHEDULE_STATUSES = ["active", "paused", "disabled"] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

/**
 * Why a schedule stopped for good: the API key it is bound to no longer stands, or the token of
 * a creator bound by its token's lifetime expired (see binding.ts).
 */
export const DISABLED_REASONS = ["api_key_revoked", "api_key_expired", "creator_expired"] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

/**
 * `pending`: recorded, its action not yet known to have happened (a crash, or a retry after a
 * fault); `started`: a session was created and its run started, or a message started a run;
 * `enqueued`, `interrupted`: what the message did to the run going; `failed`: refused, see
 * `error_code` and `error`.
 */
export const FIRING_OUTCOMES = ["pending", "started", "enqueued", "interrupted", "failed"] as const;
export type FiringOutcome = (typeof FIRING_OUTCOMES)[number];

/** Who a schedule acts as when it fires: its creator, as authenticated when it was created. */
export interface ScheduleCreator {
  subject: string;
  scopes: Scope[];
  via: "jwt" | "api_key";
  /** The API key behind the creator's credential; its revocation disables the schedule. */
  key_id: string | null;
  /** Epoch ms after which the schedule no longer acts (bound to its creator's token); null: no such end (binding.ts). */
  expires_at: number | null;
}

export interface MessageAction extends AddMessageRequest {
  session_id: string;
}

/** What each firing does: a new session from a create body, or a message to one session. */
export type ScheduleAction = { session: CreateSessionRequest; message: null } | { session: null; message: MessageAction };

export interface NewSchedule {
  id: string;
  creator: ScheduleCreator;
  cron: string;
  /** Canonical IANA name (see `checkCron`). */
  timezone: string;
  paused: boolean;
  action: ScheduleAction;
  /** The tenant's `max_schedules`. */
  maxSchedules: number;
  now: number;
}

export interface SchedulePatch {
  cron?: string;
  timezone?: string;
  paused?: boolean;
  now: number;
}

export interface Schedule {
  id: string;
  tenant_id: string;
  created_by: string;
  cron: string;
  timezone: string;
  paused: boolean;
  status: ScheduleStatus;
  disabled_reason: DisabledReason | null;
  disabled_at: string | null;
  /** When the schedule stops for its creator's token having expired; null when it is bound to an API key or to the tenant. */
  expires_at: string | null;
  session: CreateSessionRequest | null;
  message: MessageAction | null;
  /** The next slot it fires at; null while paused or disabled. */
  next_run_at: string | null;
  last_fired_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface Firing {
  schedule_id: string;
  /** The slot: the time the cron expression named. */
  scheduled_at: string;
  /** When the firing was recorded, just before its action. */
  fired_at: string;
  /** The session created, or the one the message went to. */
  session_id: string | null;
  outcome: FiringOutcome;
  error_code: ProblemCode | null;
  error: string | null;
  finished_at: string | null;
}

export interface ListSchedulesInput {
  created_by: string | null;
  limit: number;
  cursor: string | null;
}

export interface PageInput {
  limit: number;
  cursor: string | null;
}

export type SchedulerFailure =
  { reason: "schedule_not_found" } | { reason: "limit_reached"; max: number } | { reason: "schedule_disabled" };

export type SchedulerResult<T> = { ok: true; value: T } | ({ ok: false } & SchedulerFailure);
