/** The tenant index's word that the tenant's tool policy changed (src/tenants/policy-push.ts). */
import { heardPolicyVersion } from "../loop/tool-policy";
import type { SessionStore } from "../store/store";
import type { SessionResult } from "../../../session-config/types";
import { requireInt } from "../../../shared/validate";

/** The isolate's copy of the policy is stale unless it has `version`: the next judgement reads the policy again. */
export function policyChanged(store: Pick<SessionStore, "requireSession">, version: unknown): SessionResult<null> {
  heardPolicyVersion(store.requireSession().tenant_id, requireInt("version", version, 0), Date.now());
  return { ok: true, value: null };
}
