/**
 * The gateway's admission of a request, by token or by API key, in one call to the index: the
 * tenant bound (a deleted one, or one being deleted, answers "deleted" and binds nothing), its rate and suspension
 * judged (../admission-flow.ts, ../admission.ts), and the end user's revocation read with it. A
 * tenant shard admits its callers the same way from what `admissionView` gives it, and borrows the
 * tenant's own windows with `leaseRate` (admission-shards.ts).
 */
import * as flow from "../admission-flow";
import type { AdmissionPlace, AdmissionState } from "../admission-flow";
import { TenantGoneError } from "../tenant-binding";
import { readDeletion } from "../tenant-deletion";
import type * as T from "../types";
import type { IndexCore } from "./core";
import { revokedBefore } from "./end-users";

/** What admission needs of the index: the binding, the limiter and the config, never its tables beyond the keys'. */
export type AdmissionHost = Pick<IndexCore, "binding" | "gone" | "enter" | "config" | "limiter" | "findApiKey" | "host">;

/** The index as the place a request is admitted: its own state, keys and limiter. */
export function indexPlace(core: AdmissionHost, tenantId: string): AdmissionPlace {
  return {
    enter: () => enterState(core, tenantId),
    findApiKey: async (keyId) => core.findApiKey(tenantId, keyId),
    revokedBefore: async (subject) => revokedBefore(core.host, subject),
    prepare: async () => core.limiter,
  };
}

/** The tenant's state for admission, binding it; null for a deleted tenant (a deleted one's valid token binds nothing). */
export async function enterState(core: AdmissionHost, tenantId: string): Promise<AdmissionState | null> {
  if (core.gone && !core.binding.bound) return null;
  try {
    await core.enter(tenantId);
  } catch (error) {
    if (!(error instanceof TenantGoneError)) throw error;
    core.gone = true;
    return null;
  }
  const config = core.config();
  // The state is read only for a suspended tenant.
  return { config, deletionBegun: config.suspended && readDeletion(core.host.kv) !== null };
}

export function admitRequest(core: AdmissionHost, tenantId: string, input: T.AdmitRequestInput): Promise<T.Admission> {
  return flow.admitRequest(indexPlace(core, tenantId), input);
}

export function admitApiKey(core: AdmissionHost, tenantId: string, keyId: string, input: T.AdmitApiKeyInput): Promise<T.ApiKeyAdmission> {
  return flow.admitApiKey(indexPlace(core, tenantId), tenantId, keyId, input);
}

export function admitExchangedToken(
  core: AdmissionHost,
  tenantId: string,
  keyId: string,
  input: T.AdmitRequestInput,
): Promise<T.ApiKeyAdmission> {
  return flow.admitExchangedToken(indexPlace(core, tenantId), tenantId, keyId, input);
}
