/**
 * What one firing does: who it acts as and whether it may (the principal it is bound to still
 * stands; the tenant's index admits it as it admits a request, so suspension and the rate limit
 * apply, the latter in windows of the schedules' own), then its action, through the very
 * operations the public routes run. A refusal becomes a `failed` outcome to record; any other
 * fault is thrown, for the Scheduler to try again.
 */
import { type ApiKeyRecord, keyStandingProblem } from "../auth/api-keys";
import { type Principal, rateBucket } from "../auth/principal";
import { creatorExpired } from "./binding";
import { loadConfig } from "../config";
import type { Env } from "../env";
import { tenantIndexStub } from "../objects";
import { ApiError, type ProblemCode } from "../problems";
import type { Actor } from "../sessions/actor";
import { addMessage } from "../sessions/add-message";
import { SessionClient } from "../sessions/client";
import { createSession } from "../sessions/create";
import type { DisabledReason, FiringOutcome, ScheduleAction, ScheduleCreator } from "./types";

/** A refusal's text as recorded: the problem's detail and its fields, bounded. */
export const MAX_FIRING_ERROR_CHARS = 2_000;

export type Gate =
  | { kind: "go"; actor: Actor }
  /** The principal the schedule is bound to no longer stands (binding.ts): the schedule stops for good. */
  | { kind: "disable"; reason: DisabledReason }
  /** The slot passes unfired while the tenant is suspended. */
  | { kind: "suspended" }
  | { kind: "refused"; error_code: ProblemCode; error: string };

export type ActionResult =
  { outcome: Exclude<FiringOutcome, "pending" | "failed"> } | { outcome: "failed"; error_code: ProblemCode; error: string };

/** What makes the slot's action idempotent (see slot-ids.ts). */
export interface SlotKeys {
  /** The session a session schedule creates at this slot, or the one a message schedule writes to. */
  sessionId: string;
  requestKey: string;
}

export async function openGate(env: Env, tenantId: string, creator: ScheduleCreator, now: number): Promise<Gate> {
  // Checked before any I/O: a schedule whose creator's token has expired acts no more.
  if (creatorExpired(creator, now)) return { kind: "disable", reason: "creator_expired" };
  const index = tenantIndexStub(env, tenantId);
  if (creator.key_id !== null) {
    const reason = keyProblem(await index.findApiKey(tenantId, creator.key_id), now);
    if (reason) return { kind: "disable", reason };
  }
  const principal: Principal = {
    tenantId,
    subject: creator.subject,
    scopes: creator.scopes,
    via: creator.via,
    ...(creator.key_id !== null ? { keyId: creator.key_id } : {}),
  };
  // Counted apart from interactive requests: a tenant's schedules cannot use up the window its
  // callers need, whatever their number (see src/tenants/admission.ts).
  const admission = await index.admitRequest(tenantId, { bucket: rateBucket(principal), now, kind: "firing" });
  if (!admission.ok) {
    if (admission.code === "suspended" || admission.code === "deleted") return { kind: "suspended" };
    return {
      kind: "refused",
      error_code: "rate_limited",
      error: "The schedules' requests_per_minute (the tenant's, or this creator's share of it) was used up at the slot.",
    };
  }
  return {
    kind: "go",
    actor: {
      env,
      config: loadConfig(env),
      principal,
      limits: admission.limits,
      settings: admission.settings,
      models: admission.models ?? null,
      shards: admission.shards,
    },
  };
}

/** Pure: why a schedule created with this key must stop, or null while the key stands. Keys are never deleted, so a missing one was never valid here. */
export function keyProblem(record: Pick<ApiKeyRecord, "revoked_at" | "expires_at"> | null, now: number): DisabledReason | null {
  if (!record) return "api_key_revoked";
  const problem = keyStandingProblem(record, now);
  if (problem === "key_revoked") return "api_key_revoked";
  if (problem === "key_expired") return "api_key_expired";
  return null;
}

/**
 * Whether the slot's action already happened: asked when a firing is completed after a crash,
 * before anything else, so a firing that acted and then lost its record is recorded, not repeated.
 */
export async function actionDone(env: Env, tenantId: string, action: ScheduleAction, keys: SlotKeys): Promise<ActionResult | null> {
  if (action.session) return (await new SessionClient(env, tenantId, keys.sessionId).find()) ? { outcome: "started" } : null;
  try {
    const outcome = await new SessionClient(env, tenantId, keys.sessionId).requestOutcome(keys.requestKey);
    return outcome ? { outcome } : null;
  } catch (error) {
    if (error instanceof ApiError && error.code === "not_found") return null;
    throw error;
  }
}

/** The action, exactly as the route runs it for the actor; a refusal the route would answer comes back as `failed`. */
export async function performAction(actor: Actor, action: ScheduleAction, keys: SlotKeys): Promise<ActionResult> {
  try {
    if (action.session) {
      await createSession(actor, action.session, keys.sessionId);
      return { outcome: "started" };
    }
    const { outcome } = await addMessage(actor, keys.sessionId, action.message, keys.requestKey);
    return { outcome };
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) return refusal(error, action.session ? "session" : "message");
    throw error;
  }
}

/** Field paths name the schedule's own fields: `session.tools.0.url` rather than the route's `body.tools.0.url`. */
export function refusal(error: ApiError, field: "session" | "message"): ActionResult {
  const fields = (error.errors ?? []).map((problem) => `${problem.path.replace(/^body\b/, field)}: ${problem.message}`);
  const text = fields.length > 0 ? `Invalid fields: ${fields.join("; ")}` : error.detail;
  return { outcome: "failed", error_code: error.code, error: text.slice(0, MAX_FIRING_ERROR_CHARS) };
}
