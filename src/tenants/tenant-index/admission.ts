/**
 * The gateway's admission of a request, by token or by API key, in one call to the index: the
 * tenant bound (a deleted one, or one being deleted, answers "deleted" and binds nothing), its rate and suspension
 * judged (../admission.ts), and the end user's revocation read with it.
 */
import { checkApiKeyRecord, exchangedKeyStands, keyScopes } from "../../auth/api-keys";
import { admit, admitInput } from "../admission";
import type { ApiKeyRecord } from "../api-key-store";
import { TenantGoneError } from "../tenant-binding";
import { readDeletion } from "../tenant-deletion";
import type * as T from "../types";
import { requireString } from "../../shared/validate";
import type { IndexCore } from "./core";
import { withRevocation } from "./end-users";

/** What admission needs of the index: the binding, the limiter and the config, never its tables beyond the keys'. */
export type AdmissionHost = Pick<IndexCore, "binding" | "gone" | "enter" | "config" | "limiter" | "findApiKey" | "host">;

export async function admitRequest(core: AdmissionHost, tenantId: string, input: T.AdmitRequestInput): Promise<T.Admission> {
  // A deleted tenant's valid token is refused, and binds nothing.
  if (core.gone && !core.binding.bound) return { ok: false, code: "deleted" };
  try {
    await core.enter(tenantId);
  } catch (error) {
    if (!(error instanceof TenantGoneError)) throw error;
    core.gone = true;
    return { ok: false, code: "deleted" };
  }
  return withRevocation(core.host, deletedOr(core, admit(core.config(), core.limiter, admitInput(input))), input.endUser);
}

/** The key's scopes, from its record: the gateway does not know them before this call. */
export function admitApiKey(core: AdmissionHost, tenantId: string, keyId: string, input: T.AdmitApiKeyInput): Promise<T.ApiKeyAdmission> {
  const secretHash = requireString("secretHash", input.secretHash);
  const stands = (record: ApiKeyRecord | null, id: string, now: number) =>
    checkApiKeyRecord({ tenantId, keyId: id }, secretHash, record, now) === null;
  return admitWithKey(core, tenantId, keyId, input, stands, keyScopes);
}

/** The token's own scopes (in `input`): it may have been granted fewer than its key holds. */
export function admitExchangedToken(
  core: AdmissionHost,
  tenantId: string,
  keyId: string,
  input: T.AdmitRequestInput,
): Promise<T.ApiKeyAdmission> {
  return admitWithKey(core, tenantId, keyId, input, (record, id, now) => exchangedKeyStands(record, { tenantId, keyId: id }, now));
}

/**
 * The key's record, read from storage, and the request admitted in the same call only when
 * `stands` accepts the record (so a key that does not stand spends no rate budget). The
 * scopes that decide the request's lane: `scopes(record)` when given, else the input's.
 */
async function admitWithKey(
  core: AdmissionHost,
  tenantId: string,
  keyId: string,
  input: T.AdmitRequestInput,
  stands: (record: ApiKeyRecord | null, keyId: string, now: number) => boolean,
  scopes?: (record: ApiKeyRecord) => readonly string[],
): Promise<T.ApiKeyAdmission> {
  const id = requireString("keyId", keyId);
  const request = admitInput(input);
  const record = core.findApiKey(tenantId, id);
  if (!record || !stands(record, id, request.now)) return { record, admission: null };
  await core.enter(tenantId);
  const admission = deletedOr(core, admit(core.config(), core.limiter, scopes ? { ...request, scopes: scopes(record) } : request));
  return { record, admission: withRevocation(core.host, admission, input.endUser) };
}

/** A suspension that is a deletion begun says so; the state is read only for a suspended tenant. */
function deletedOr(core: AdmissionHost, admission: T.Admission): T.Admission {
  if (admission.ok || admission.code !== "suspended") return admission;
  return readDeletion(core.host.kv) === null ? admission : { ok: false, code: "deleted" };
}
