/**
 * Checks a session report from a session object and turns it into row values. Reports come from our own
 * code, so a malformed one is a bug and throws rather than being half-stored.
 */
import { MAX_METADATA_ENTRIES, MAX_METADATA_KEY_CHARS, MAX_METADATA_VALUE_CHARS } from "../session-config/metadata";
import { MAX_TITLE_CHARS } from "../session-config/title";
import { SESSION_STATUSES, STOP_REASONS, type SessionStatus, type StopReason } from "../session-config/types";
import type { SessionReport } from "./types";
import { canonicalModel } from "../models/catalog";
import { type BudgetWait, isBudgetWait } from "../usage/budgets";
import { optionalString, optionalStringRecord, requireInt, requireIsoMs, requireString } from "../shared/validate";

export const METADATA_BOUNDS = {
  maxEntries: MAX_METADATA_ENTRIES,
  maxKeyChars: MAX_METADATA_KEY_CHARS,
  maxValueChars: MAX_METADATA_VALUE_CHARS,
};

/** A report in the form the sessions table stores it. */
export interface ReportRow {
  id: string;
  created_by: string;
  agent_id: string | null;
  agent_version: number | null;
  parent_session_id: string | null;
  title: string | null;
  metadata: Record<string, string> | null;
  /** '' from session objects of code before usage rollups. */
  model: string;
  /** The API key that created the session; '' for none (a JWT) or not told. */
  api_key_id: string;
  status: SessionStatus;
  stop_reason: StopReason | null;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  steps: number;
  /** Runs started over the session's life. */
  runs: number;
  /** The budget a `waiting_budget` session waits on; null otherwise. */
  budget_wait: BudgetWait | null;
  created_at: number;
  updated_at: number;
  revision: number;
}

export function isSessionStatus(value: unknown): value is SessionStatus {
  return typeof value === "string" && (SESSION_STATUSES as readonly string[]).includes(value);
}

export function requireStatus(value: unknown): SessionStatus {
  if (!isSessionStatus(value)) throw new TypeError("status is not a session status");
  return value;
}

export function parseSessionReport(report: SessionReport): ReportRow {
  if (typeof report !== "object" || report === null) throw new TypeError("report must be an object");
  const usage: unknown = report.usage;
  if (typeof usage !== "object" || usage === null) throw new TypeError("report.usage must be an object");
  const { steps, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens } = usage as Record<string, unknown>;
  const stopReason = report.stop_reason;
  if (stopReason !== null && !(STOP_REASONS as readonly unknown[]).includes(stopReason)) {
    throw new TypeError("report.stop_reason is not a stop reason");
  }
  const agent: unknown = report.agent ?? null;
  if (agent !== null && (typeof agent !== "object" || Array.isArray(agent))) throw new TypeError("report.agent must be an object or null");
  const pin = agent as { id?: unknown; version?: unknown } | null;
  return {
    id: requireString("report.id", report.id),
    created_by: requireString("report.created_by", report.created_by),
    agent_id: pin === null ? null : requireString("report.agent.id", pin.id),
    agent_version: pin === null ? null : requireInt("report.agent.version", pin.version, 1),
    parent_session_id: report.parent_session_id == null ? null : requireString("report.parent_session_id", report.parent_session_id),
    // A title is cut by code points: each may take two UTF-16 units.
    title: optionalString("report.title", report.title, MAX_TITLE_CHARS * 2),
    metadata: optionalStringRecord("report.metadata", report.metadata, METADATA_BOUNDS),
    model: report.model == null ? "" : canonicalModel(requireString("report.model", report.model)),
    api_key_id: report.api_key_id == null ? "" : requireString("report.api_key_id", report.api_key_id),
    status: requireStatus(report.status),
    stop_reason: stopReason,
    input_tokens: requireInt("report.usage.input_tokens", input_tokens, 0),
    output_tokens: requireInt("report.usage.output_tokens", output_tokens, 0),
    // Absent from a session that has not run since cache counts existed: nothing was cached.
    cache_read_tokens: requireInt("report.usage.cache_read_tokens", cache_read_tokens ?? 0, 0),
    cache_write_tokens: requireInt("report.usage.cache_write_tokens", cache_write_tokens ?? 0, 0),
    steps: requireInt("report.usage.steps", steps, 0),
    runs: requireInt("report.runs", report.runs ?? 0, 0),
    budget_wait: parseBudgetWait(report.budget_wait),
    created_at: requireIsoMs("report.created_at", report.created_at),
    updated_at: requireIsoMs("report.updated_at", report.updated_at),
    revision: requireInt("report.revision", report.revision, 0),
  };
}

function parseBudgetWait(value: unknown): BudgetWait | null {
  if (value === null || value === undefined) return null;
  if (!isBudgetWait(value)) throw new TypeError("report.budget_wait is not a budget");
  return value;
}
