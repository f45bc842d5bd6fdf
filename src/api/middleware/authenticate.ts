/**
 * Authentication and admission of every `/v1` request: who is calling (`authenticate` from
 * src/auth, one generic 401 on any failure; the credential comes from `Authorization`, or for
 * the events route from `?access_token=`, see url-token.ts), then whether its tenant lets it in
 * (suspension, rate limit; see src/tenants/admission.ts for the windows a request is counted in,
 * and `requestKind` for the routes an admin may always reach). Sets `principal` and `limits` for
 * everything after it, and puts the rate-limit state (`RateLimit-Policy`, `RateLimit`) on every
 * answer to an admitted request, a 429 of the rate limit included. An API key
 * is looked up and its request admitted in one call to the tenant index (`admitApiKey`), and so
 * is the key behind a token exchanged from one (`admitExchangedToken`); the key's record is read
 * afresh on every request, so a revocation still counts at once. A tenant whose sessions are
 * spread over shards is admitted by the shard its caller hashes to instead (src/tenants/admission-door.ts),
 * which keeps the record for two seconds at most and forgets it the moment it is revoked.
 *
 * Failed authentications are counted per client address, or without a trusted one per tenant
 * an API key names (`failureWindowKey`, `AuthGuard`). Once blocked, such requests still go
 * through every check that needs no I/O: a JWT that verifies, or an API key this isolate
 * verified recently, passes as before; anything else gets 429 before it can make a tenant's
 * index object do any work.
 */
import type { MiddlewareHandler } from "hono";
import { tenantIndexStub } from "../../objects";
import { authenticate as authenticateCredential, type AuthenticateDeps } from "../../auth/authenticate";
import type { AuthFailure } from "../../auth/failure";
import type { Env } from "../../env";
import type { Admission, RequestKind } from "../../tenants/types";
import { keyBucket, type Principal, rateBucket, standingKeyOf } from "../../auth/principal";
import { endUserTokenRevoked } from "../../auth/end-user-token";
import { authGuard, failureWindowKey, type AuthGuard } from "../auth-guard";
import { clientAddress } from "../client-address";
import type { AppContext, AppEnv } from "../context";
import { ApiError, UNAVAILABLE_RETRY_AFTER_SECONDS } from "../errors";
import { describeError, log } from "../../log";
import { authDeps } from "../platform";
import { bodyCapFor, enforceDeclaredLength } from "./body-limit";
import { API_KEY_SECRET_MISSING } from "../../auth/api-key-secret";
import { misplacedCredential, urlCredential } from "./url-token";
import { requestKind } from "./request-kind";
import { ensureHeaders, prepareHeaders } from "./response-headers";
import { rateLimitFields } from "../rate-limit-fields";
import { admissionDoor, rememberLayout } from "../../tenants/admission-door";

export function authenticate(guard: AuthGuard = authGuard): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const now = Date.now();
    const header = c.req.header("Authorization") ?? null;
    const inUrl = urlCredential(c.req.method, c.req.path, new URL(c.req.url).searchParams, header !== null);
    const credential = inUrl.kind === "token" ? inUrl.authorization : header;
    const failures = failureWindowKey(clientAddress(c), credential);
    const blocked = failures !== null && guard.blockedSeconds(failures, now) > 0;
    if (inUrl.kind === "ambiguous")
      throw new ApiError("bad_request", "Send the credential in the Authorization header or in access_token, not both.");
    if (inUrl.kind === "refused") {
      log("info", "auth_failed", { request_id: c.var.requestId, reason: inUrl.reason, blocked });
      return refuse(c, guard, failures, now);
    }
    const kind = requestKind(c.req.method, c.req.path);
    const keyAdmission: KeyAdmission = { keyId: null, admission: null, lastUsedAt: null };
    const deps = guardedDeps(c.env, await authDeps(c.env, c.var.config), guard, blocked, { now, kind }, keyAdmission);
    const result = await authenticateCredential(credential, deps, now);
    if (!result.ok) {
      // The reason is for operators only; the caller gets the same 401 whatever failed, unless
      // nothing could be judged: a 401 then would tell a client to throw away good credentials.
      log("info", "auth_failed", { request_id: c.var.requestId, reason: result.reason, blocked });
      if (UNJUDGED.has(result.reason)) throw unavailable();
      // Fails closed, and says why: a 401 would tell the client its good key is bad.
      if (result.reason === "api_key_secret_unavailable") throw new ApiError("internal", API_KEY_SECRET_MISSING);
      return refuse(c, guard, failures, now);
    }
    const { principal } = result;
    const misplaced = misplacedCredential(principal, c.req.method, c.req.path, inUrl.kind === "token");
    if (misplaced !== null) {
      log("info", "auth_failed", { request_id: c.var.requestId, reason: misplaced, blocked });
      return refuse(c, guard, failures, now);
    }
    const index = tenantIndexStub(c.env, principal.tenantId);
    const bucket = rateBucket(principal);
    const admitInput = {
      bucket,
      now,
      kind,
      scopes: principal.scopes,
      ...(principal.endUser !== undefined ? { endUser: principal.endUser } : {}),
    };

    // A token exchanged from an API key lives on after the key is revoked unless we look: the
    // key's record is read, and the request admitted, in one call to the index. So is the key
    // that minted an end user's token.
    const standingKey = standingKeyOf(principal);
    if (principal.via === "jwt" && standingKey !== undefined) {
      const keyId = standingKey;
      const door = admissionDoor(c.env, principal.tenantId, bucket);
      const exchanged = await reachIndex(c, () => door.admitExchangedToken(keyId, admitInput));
      if (!exchanged.admission) {
        log("info", "auth_failed", { request_id: c.var.requestId, reason: "source_key_invalid" });
        return refuse(c, guard, failures, now);
      }
      keyAdmission.keyId = keyId;
      keyAdmission.admission = exchanged.admission;
    }
    if (principal.via === "api_key" && principal.keyId !== undefined) guard.noteVerifiedKey(principal.tenantId, principal.keyId, now);

    const admitted = standingKey !== undefined && keyAdmission.keyId === standingKey ? keyAdmission.admission : null;
    const admission: Admission =
      admitted ??
      (await reachIndex(c, async (): Promise<Admission> => admissionDoor(c.env, principal.tenantId, bucket).admitRequest(admitInput)));
    if (!admission.ok && admission.code === "suspended") throw new ApiError("tenant_suspended");
    if (!admission.ok && admission.code === "deleted") throw new ApiError("tenant_deleted");
    // An end user's cut-off came with the admission: no lookup of its own (src/auth/end-user-token.ts).
    if (admission.ok && endUserTokenRevoked(principal, admission.endUserRevokedBefore)) {
      log("info", "auth_failed", { request_id: c.var.requestId, reason: "end_user_revoked" });
      return refuse(c, guard, failures, now);
    }
    // The tenant's next requests are counted where this one says, a refused one too.
    // (An object of the version before answers a refusal without one.)
    if ((admission.ok || admission.code === "rate_limited") && admission.shards) rememberLayout(principal.tenantId, admission.shards);
    // Every answer from here on, a 429 included, tells the caller where it stands.
    const rateHeaders = rateLimitFields(admission.rate);
    prepareHeaders(c, rateHeaders);
    if (!admission.ok) {
      throw new ApiError("rate_limited", RATE_LIMITED_DETAIL[admission.rate.current.name] ?? RATE_LIMITED_DETAIL["tenant"], {
        retryAfterSeconds: admission.retryAfterSeconds,
      });
    }
    c.set("principal", principal);
    c.set("limits", admission.limits);
    c.set("settings", admission.settings);
    c.set("models", admission.models ?? null);
    c.set("shards", admission.shards);
    enforceDeclaredLength(c, bodyCapFor(admission.limits, c.req.method, c.req.path));

    if (principal.via === "api_key" && principal.keyId !== undefined && lastUseDue(keyAdmission.lastUsedAt, now)) {
      const keyId = principal.keyId;
      inBackground(c, index.touchApiKey(principal.tenantId, keyId, now), "touch_api_key_failed");
    }
    await next();
    ensureHeaders(c, rateHeaders);
  };
}

/**
 * Answers a failed authentication: 429 while its failure window is blocked (this failure may
 * be the one that blocks it), else the one 401. A request with no window is not counted (see
 * `failureWindowKey`).
 */
async function refuse(c: AppContext, guard: AuthGuard, failures: string | null, now: number): Promise<never> {
  if (failures !== null) {
    const blockedFor =
      guard.blockedSeconds(failures, now) ||
      (await guard.recordFailure(failures, now, c.var.config.auth.failuresPerMinute, c.env.AUTH_FAILURE_LIMITER, (error) =>
        log("warn", "auth_failure_limiter_failed", { request_id: c.var.requestId, error: describeError(error).message }),
      ));
    if (blockedFor > 0) {
      throw new ApiError("rate_limited", "Too many failed authentications from this address or for this tenant's keys; retry later.", {
        retryAfterSeconds: blockedFor,
      });
    }
  }
  throw new ApiError("unauthorized");
}

/** What the API-key lookup of this request brought back besides the record: its admission. */
interface KeyAdmission {
  keyId: string | null;
  admission: Admission | null;
  /** The key's `last_used_at` as stored before this request. */
  lastUsedAt: string | null;
}

/**
 * The isolate's auth dependencies with this request's view of the guard (screening and the
 * unknown-key note), and an API-key lookup that admits the request in the same round trip,
 * leaving the admission in `admitted` (null when the key did not stand).
 */
function guardedDeps(
  env: Env,
  deps: AuthenticateDeps,
  guard: AuthGuard,
  addressBlocked: boolean,
  request: { now: number; kind: RequestKind | undefined },
  admitted: KeyAdmission,
): AuthenticateDeps {
  const { now, kind } = request;
  return {
    ...deps,
    screenApiKey: (tenantId, keyId) => guard.screenApiKey(tenantId, keyId, addressBlocked, now),
    legacyKeyTenant: wrapLegacyLookup(deps.legacyKeyTenant, (lookup, tenantId) =>
      guard.legacyTenantKnown(tenantId, now, () => lookup(tenantId)),
    ),
    findApiKey: async (tenantId, keyId, presentedHash) => {
      const input = { secretHash: presentedHash, bucket: keyBucket(keyId), now, kind };
      const { record, admission } = await admissionDoor(env, tenantId, input.bucket).admitApiKey(keyId, input);
      if (record === null) guard.noteUnknownKey(tenantId, keyId, now);
      admitted.keyId = keyId;
      admitted.admission = admission;
      admitted.lastUsedAt = record?.last_used_at ?? null;
      return record;
    },
  };
}

/** The isolate's registry lookup for old-format keys, seen through this request's guard (its memory of answers); null stays null. */
function wrapLegacyLookup(
  lookup: AuthenticateDeps["legacyKeyTenant"],
  through: (lookup: (tenantId: string) => Promise<boolean>, tenantId: string) => Promise<boolean>,
): AuthenticateDeps["legacyKeyTenant"] {
  return lookup && ((tenantId) => through(lookup, tenantId));
}

/** What a 429 of each rate window says (the window's name is also in the `RateLimit` header field). */
const RATE_LIMITED_DETAIL: Readonly<Record<string, string>> = {
  tenant: "Too many requests for this tenant; retry later.",
  caller: "Too many requests from this API key or user: its share of the tenant's requests_per_minute is used up; retry later.",
  admin: "Too many key-management or suspension requests from this admin; retry later.",
  "end-user": "Too many requests from this end user: its end_user_requests_per_minute is used up; retry later.",
  "end-user-tokens": "Too many end-user tokens minted for this tenant: its end_user_tokens_per_minute is used up; retry later.",
  exports: "Too many session exports for this tenant: its exports_per_minute is used up; retry later.",
};

/** Failures that say nothing about the credentials: the store or the key set was unreachable. */
const UNJUDGED = new Set<AuthFailure>(["key_store_unavailable", "jwks_unavailable"]);

function unavailable(): ApiError {
  return new ApiError("service_unavailable", undefined, { retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS });
}

/** A call to the tenant index that, when it fails, answers 503 instead of a bare 500. */
async function reachIndex<T>(c: AppContext, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    log("error", "tenant_index_unavailable", { request_id: c.var.requestId, error: describeError(error).message });
    throw unavailable();
  }
}

/**
 * A key's `last_used_at` is recorded at most this often. Recording it on every request made
 * each API-key request wait for a commit of the tenant index: an object's answers wait until
 * its writes are durable, and the previous request's record was still being written.
 */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** Pure: whether this use of a key should be recorded (`lastUsedAt`: as stored, ISO, or null). */
export function lastUseDue(lastUsedAt: string | null, now: number): boolean {
  if (lastUsedAt === null) return true;
  const last = Date.parse(lastUsedAt);
  return Number.isNaN(last) || now - last >= LAST_USED_RESOLUTION_MS;
}

/** Work the response must not wait for; logged, never surfaced, when it fails. */
export function inBackground(c: AppContext, work: Promise<unknown>, failureEvent: string): void {
  const guarded = work.catch((error: unknown) =>
    log("warn", failureEvent, { request_id: c.var.requestId, error: describeError(error).message }),
  );
  try {
    c.executionCtx.waitUntil(guarded);
  } catch {
    // No execution context (the app called directly): the promise still runs to completion.
  }
}
