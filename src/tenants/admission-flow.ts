/**
 * The order in which a request is admitted, wherever it is counted: on the tenant index, or on
 * the tenant shard its caller hashes to (shards/admission.ts). The tenant's state, the API key's
 * record and the end user's cut-off come from the place; the windows are the one rule of
 * ./admission.ts. A key that does not stand spends no rate budget and binds nothing.
 */
import { checkApiKeyRecord, exchangedKeyStands, keyScopes } from "../auth/api-keys";
import { admitInput, counted, type AdmitInput, windowsFor } from "./admission";
import type { ApiKeyRecord } from "./api-key-store";
import type { RateWindow, WindowTaker } from "./rate-limit";
import type { ConfigState } from "./tenant-config";
import type * as T from "./types";
import { requireString } from "../shared/validate";

/** What admission reads of the tenant: its config, and whether its suspension is a deletion begun. */
export interface AdmissionState {
  config: ConfigState;
  deletionBegun: boolean;
}

export interface AdmissionPlace {
  /** The tenant's state, binding it on first use; null: the tenant is deleted. */
  enter(): Promise<AdmissionState | null>;
  /** The key's record; it must not bind the tenant (the key is not verified yet). */
  findApiKey(keyId: string): Promise<ApiKeyRecord | null>;
  /** The end user's token cut-off (epoch ms), if it has one. */
  revokedBefore(subject: string): Promise<number | null>;
  /**
   * What counts this request in `windows`, readied: the index's limiter as it is; a shard's holds
   * a request's worth of each of the tenant's own windows, borrowed from the index if need be.
   */
  prepare(windows: readonly RateWindow[], now: number): Promise<WindowTaker>;
}

export async function admitRequest(place: AdmissionPlace, input: T.AdmitRequestInput): Promise<T.Admission> {
  return admitChecked(place, admitInput(input), input.endUser);
}

/** The key's scopes, from its record: the gateway does not know them before this call. */
export function admitApiKey(place: AdmissionPlace, tenantId: string, keyId: string, input: T.AdmitApiKeyInput): Promise<T.ApiKeyAdmission> {
  const secretHash = requireString("secretHash", input.secretHash);
  const stands = (record: ApiKeyRecord | null, id: string, now: number) =>
    checkApiKeyRecord({ tenantId, keyId: id }, secretHash, record, now) === null;
  return admitWithKey(place, keyId, input, stands, keyScopes);
}

/** The token's own scopes (in `input`): it may have been granted fewer than its key holds. */
export function admitExchangedToken(
  place: AdmissionPlace,
  tenantId: string,
  keyId: string,
  input: T.AdmitRequestInput,
): Promise<T.ApiKeyAdmission> {
  return admitWithKey(place, keyId, input, (record, id, now) => exchangedKeyStands(record, { tenantId, keyId: id }, now));
}

/**
 * The key's record, and the request admitted only when `stands` accepts it. The scopes that
 * decide the request's lane: `scopes(record)` when given, else the input's.
 */
async function admitWithKey(
  place: AdmissionPlace,
  keyId: string,
  input: T.AdmitRequestInput,
  stands: (record: ApiKeyRecord | null, keyId: string, now: number) => boolean,
  scopes?: (record: ApiKeyRecord) => readonly string[],
): Promise<T.ApiKeyAdmission> {
  const id = requireString("keyId", keyId);
  const request = admitInput(input);
  const record = await place.findApiKey(id);
  if (!record || !stands(record, id, request.now)) return { record, admission: null };
  const admission = await admitChecked(place, scopes ? { ...request, scopes: scopes(record) } : request, input.endUser);
  return { record, admission };
}

async function admitChecked(place: AdmissionPlace, request: AdmitInput, endUser: unknown): Promise<T.Admission> {
  const state = await place.enter();
  if (state === null) return { ok: false, code: "deleted" };
  // A suspension that is a deletion begun says so.
  if (state.config.suspended) return { ok: false, code: state.deletionBegun ? "deleted" : "suspended" };
  const windows = windowsFor(state.config.limits, request);
  const taker = await place.prepare(windows, request.now);
  const admission = counted(state.config, windows, taker.take(windows, request.now));
  if (!admission.ok || typeof endUser !== "string") return admission;
  const cutOff = await place.revokedBefore(endUser);
  return cutOff === null ? admission : { ...admission, endUserRevokedBefore: cutOff };
}

/** What a tenant shard asks the index for to admit its callers (src/tenants/shards/admission.ts). */
export interface AdmissionViewInput {
  /** The API key whose record is wanted (the tenant is not bound when it names no key). */
  keyId?: string;
  /** The end user whose token cut-off is wanted. */
  endUser?: string;
}

/** The tenant's state as admission reads it, with the record and cut-off asked for. */
export interface AdmissionView {
  /** Absent when `keyId` named no key; null: the tenant is deleted. */
  state?: AdmissionState | null;
  record?: ApiKeyRecord | null;
  revokedBefore?: number | null;
}

/** A shard's request for part of one of the tenant's own rate windows (`tenant`, `end_user_tokens`, `exports`). */
export interface RateAsk {
  key: string;
  limit: number;
  want: number;
}

/** What a shard is told to forget of what it keeps for admission: the config, a key's record, an end user's cut-off. */
export interface AdmissionChange {
  config?: boolean;
  keyId?: string;
  endUser?: string;
}
