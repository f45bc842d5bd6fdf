/**
 * The per-request gate: a suspended tenant is refused outright, then the request is counted in
 * the rate windows of its lane (`windowsFor`; ./admission-flow.ts counts them where the request is admitted).
 *
 * The lanes, each counted apart so that none can starve another:
 * - interactive (every request but those below): the tenant's `requests_per_minute`, and the
 *   caller's share of it (`callerRequestsPerMinute`: one API key, or one JWT subject), so one
 *   caller cannot take the whole window from its colleagues; an end user's share is at most
 *   `end_user_requests_per_minute`, so a few hostile pages cannot take it either. The tenant's
 *   window is one count with two limits: a tenant admin's request is admitted up to the whole
 *   window, any other caller's only up to the window less the admins' reserve
 *   (`adminReservedRequests`), so callers flooding together cannot lock the admins out;
 * - admin: an admin's key management (create, list, revoke) and a platform admin's suspension
 *   requests, `ADMIN_REQUESTS_PER_MINUTE` a minute per admin (or the caller's share when that
 *   is larger) whatever the interactive windows hold, so a flooding key can always be revoked;
 * - end-user tokens: a mint of an end user's token is interactive, and also counted in the
 *   tenant's `end_user_tokens_per_minute`;
 * - exports: a session's export is interactive, and also counted in the tenant's
 *   `exports_per_minute`, since one reads and sends a whole session;
 * - firing: a schedule's firings, with windows of the same sizes as the interactive ones but
 *   their own counts, so schedules cannot eat the window of interactive requests, nor one
 *   creator's schedules those of another.
 */
import { currentLayout } from "./tenant-config";
import { ADMIN_REQUESTS_PER_MINUTE, adminReservedRequests, callerRequestsPerMinute, type Limits } from "../limits";
import { hasScope, isScope, type Scope } from "../auth/principal";
import type { ConfigState } from "./tenant-config";
import { RATE_WINDOW_MS, type RateTake, type RateWindow } from "./rate-limit";
import type { AdmitRequestInput, Admission, RateReport, RequestKind } from "./types";
import { requireNow, requireString } from "../shared/validate";

/** A window with the name it is reported under (see `RateReport`). */
export interface NamedWindow extends RateWindow {
  name: string;
}

/** Who may use the admin lane for each kind of request: the scope its routes require. */
const ADMIN_KINDS: Readonly<Partial<Record<RequestKind, Scope>>> = {
  key_management: "tenant:admin",
  suspension: "platform:admin",
};

export interface AdmitInput {
  bucket: string;
  now: number;
  kind?: RequestKind | undefined;
  /** The caller's scopes, as stored or granted; unknown ones are ignored. */
  scopes: readonly string[];
  /** The caller is an end user: its own window is `end_user_requests_per_minute` at most. */
  endUser?: boolean;
}

const REQUEST_KINDS: readonly RequestKind[] = ["key_management", "suspension", "firing", "end_user_token", "export"];

/** The checked form of an RPC's admission input. */
export function admitInput(input: AdmitRequestInput): AdmitInput {
  const { kind, scopes = [] } = input;
  if (kind !== undefined && !REQUEST_KINDS.includes(kind)) throw new TypeError("kind is not a request kind");
  if (!Array.isArray(scopes)) throw new TypeError("scopes must be an array");
  return {
    bucket: requireString("bucket", input.bucket),
    now: requireNow(input.now),
    kind,
    scopes: scopes.filter((scope) => typeof scope === "string"),
    ...(typeof input.endUser === "string" ? { endUser: true } : {}),
  };
}

/** The answer once the request was counted in its `windows` (`taken`: what the limiter said). */
export function counted(config: ConfigState, windows: readonly NamedWindow[], taken: RateTake): Admission {
  const rate = report(windows, taken.remaining, taken.resetSeconds);
  if (!taken.ok)
    return { ok: false, code: "rate_limited", retryAfterSeconds: taken.retryAfterSeconds, rate, shards: currentLayout(config) };
  return {
    ok: true,
    limits: config.limits,
    suspended: false,
    settings: config.settings,
    shards: currentLayout(config),
    rate,
    ...(config.models !== null ? { models: config.models } : {}),
  };
}

/**
 * The tenant's own windows, each one count for all its callers (a sharded tenant's shards borrow
 * them from the index), with the most each admits: `tenant` admits less for a caller that is no
 * admin (the admins' reserve). Every other window is one caller's, its key naming the caller.
 */
export const TENANT_WINDOWS: Readonly<Record<string, (limits: Limits) => number>> = {
  tenant: (limits) => limits.requests_per_minute,
  firing: (limits) => limits.requests_per_minute,
  end_user_tokens: (limits) => limits.end_user_tokens_per_minute,
  exports: (limits) => limits.exports_per_minute,
};

export function isTenantWindow(window: RateWindow): boolean {
  return Object.hasOwn(TENANT_WINDOWS, window.key);
}

/** Pure: the windows a request is counted in, by its lane. */
export function windowsFor(limits: Limits, input: Pick<AdmitInput, "bucket" | "kind" | "scopes" | "endUser">): NamedWindow[] {
  const keyShare = callerRequestsPerMinute(limits);
  const share = input.endUser ? Math.min(keyShare, limits.end_user_requests_per_minute) : keyShare;
  if (input.kind === "firing") {
    return [
      { name: "schedules", key: "firing", limit: TENANT_WINDOWS["firing"]!(limits) },
      { name: "schedules-caller", key: `firing:${input.bucket}`, limit: share },
    ];
  }
  if (isAdminRequest(input.kind, input.scopes)) {
    return [{ name: "admin", key: `admin:${input.bucket}`, limit: Math.max(ADMIN_REQUESTS_PER_MINUTE, share) }];
  }
  // One count, two limits: what the others leave of the reserve is the admins' alone.
  const admin = !input.endUser && hasScope({ scopes: input.scopes.filter(isScope) }, "tenant:admin");
  const whole = TENANT_WINDOWS["tenant"]!(limits);
  const tenantLimit = admin ? whole : whole - adminReservedRequests(limits);
  const interactive = [
    { name: "tenant", key: "tenant", limit: tenantLimit },
    { name: input.endUser ? "end-user" : "caller", key: `bucket:${input.bucket}`, limit: share },
  ];
  // Minting end-user tokens is counted in the interactive windows and in one of its own for the
  // whole tenant, so a leaked minting key cannot hand out tokens at the full request rate.
  if (input.kind === "end_user_token")
    return [...interactive, { name: "end-user-tokens", key: "end_user_tokens", limit: TENANT_WINDOWS["end_user_tokens"]!(limits) }];
  // A tenant's exports together, whoever asks: their cost is the isolate's, which every tenant shares.
  if (input.kind === "export") return [...interactive, { name: "exports", key: "exports", limit: TENANT_WINDOWS["exports"]!(limits) }];
  return interactive;
}

function isAdminRequest(kind: RequestKind | undefined, scopes: readonly string[]): boolean {
  const required = kind === undefined ? undefined : ADMIN_KINDS[kind];
  return required !== undefined && hasScope({ scopes: scopes.filter(isScope) }, required);
}

/** Every window as a policy, and the one with the least left as the current one (the first on a tie). */
function report(windows: readonly NamedWindow[], remaining: readonly number[], resetSeconds: number): RateReport {
  let closest = 0;
  remaining.forEach((left, i) => {
    if (left < remaining[closest]!) closest = i;
  });
  return {
    policies: windows.map((window) => ({ name: window.name, quota: window.limit, windowSeconds: RATE_WINDOW_MS / 1000 })),
    current: { name: windows[closest]!.name, remaining: remaining[closest]!, resetSeconds },
  };
}
