/**
 * What the index gives the shards that admit a sharded tenant's callers (shards/admission.ts):
 * the tenant's state, a key's record and an end user's cut-off (`admissionView`), parts of the
 * tenant's own rate windows (`leaseRate`), and word of a change that makes what they keep stale
 * (`tellAdmissionChanged`), sent before the change is answered.
 */
import type { AdmissionChange, AdmissionView, AdmissionViewInput, RateAsk } from "../admission-flow";
import { isTenantWindow, TENANT_WINDOWS } from "../admission";
import { MAX_RATE_PART, type RateGrant } from "../rate-limit";
import { currentLayout } from "../tenant-config";
import type * as T from "../types";
import { requireInt, requireNow, requireString } from "../../shared/validate";
import { type AdmissionHost, enterState } from "./admission";
import { revokedBefore } from "./end-users";
import type { IndexHost } from "./host";
import { tellEveryShard } from "./shards";

/** The state, record and cut-off a shard asked for; a key that names no record binds nothing. */
export async function admissionView(core: AdmissionHost, tenantId: string, input: AdmissionViewInput): Promise<AdmissionView> {
  const view: AdmissionView = {};
  if (input.keyId !== undefined) {
    view.record = core.findApiKey(tenantId, requireString("keyId", input.keyId));
    if (view.record === null) return view;
  }
  view.state = await enterState(core, tenantId);
  if (view.state !== null && input.endUser !== undefined)
    view.revokedBefore = revokedBefore(core.host, requireString("endUser", input.endUser));
  return view;
}

/** At most this many windows in one ask: a request is counted in two of the tenant's own at most. */
const MAX_ASKS = 4;

/** Parts of the tenant's own windows, counted here as if that many requests came: nothing for a deleted tenant. */
export async function leaseRate(core: AdmissionHost, tenantId: string, asks: RateAsk[], now: number): Promise<RateGrant[]> {
  if (!Array.isArray(asks) || asks.length > MAX_ASKS) throw new TypeError(`asks must be an array of at most ${MAX_ASKS}`);
  const at = requireNow(now);
  const checked = asks.map((ask, i) => {
    const key = requireString(`asks[${i}].key`, ask?.key);
    if (!isTenantWindow({ key, limit: 0 })) throw new TypeError(`asks[${i}].key is not one of the tenant's own windows`);
    return { key, limit: requireInt(`asks[${i}].limit`, ask.limit, 0), want: requireInt(`asks[${i}].want`, ask.want, 1, MAX_RATE_PART) };
  });
  const state = await enterState(core, tenantId);
  if (state === null || state.config.suspended)
    return checked.map(({ key }) => ({ granted: 0, remaining: 0, start: core.limiter.windowStart(key, at) }));
  const { limits } = state.config;
  const spread = currentLayout(state.config).shards;
  // A shard not yet told of a lowered limit borrows no more than the limit now in force.
  return checked.map(({ key, limit, want }) =>
    core.limiter.grant({ key, limit: Math.min(limit, TENANT_WINDOWS[key]!(limits)) }, want, at, spread),
  );
}

/** Tells every shard to forget what `change` made stale; one not reached keeps it no longer than ADMISSION_FRESH_MS. */
export async function tellAdmissionChanged(host: IndexHost, tenantId: string, change: AdmissionChange): Promise<void> {
  await tellEveryShard(host, tenantId, "shard_admission_untold", (shard, ref) => shard.admissionChanged(tenantId, ref, change));
}
