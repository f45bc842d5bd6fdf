/** The tenant index's word that the tenant's tool policy changed (src/tenants/policy-push.ts). */
import { heardPolicyVersion } from "../loop/tool-policy";
import type { SessionStore } from "../store/store";
import type { SessionResult } from "../../../session-config/types";

/** The isolate's copy of the policy is stale unless it has `version`: the next judgement reads the policy again. */
export function policyChanged(store: Pick<SessionStore, "requireSession">, version: unknown): SessionResult<null> {
  if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 0)
    throw new TypeError("version must be a whole number of at least 0");
  heardPolicyVersion(store.requireSession().tenant_id, version, Date.now());
  return { ok: true, value: null };
}
