/** The tenant index's tool-policy calls: read, set and remove the tenant's policy, each change audited. */
import type { AuditContext } from "../../audit/types";
import { parsePolicyText, policyAnswer, readPolicy, writePolicy, type PolicyAnswer, type TenantPolicy } from "../tool-policy";
import type { IndexHost } from "./host";
import { tellPolicyChanged } from "../policy-push";
import { activeSessionIds } from "./across-shards";

const tenantTarget = (tenantId: string) => ({ type: "tenant", id: tenantId });

export function getPolicy(host: IndexHost): TenantPolicy | null {
  return readPolicy(host.kv);
}

export function currentPolicy(host: IndexHost, known: unknown): PolicyAnswer {
  return policyAnswer(host.kv, typeof known === "number" ? known : null);
}

/** The change is committed, then every active session is told before the answer (policy-push.ts). */
export async function putPolicy(
  host: IndexHost,
  tenantId: string,
  cedar: unknown,
  statements: number,
  by?: AuditContext,
): Promise<TenantPolicy> {
  const text = parsePolicyText(cedar);
  const now = new Date().toISOString();
  const policy = host.transaction(() => {
    const version = writePolicy(host.kv, text, now);
    host.audit(by, {
      action: "policy.updated",
      target: tenantTarget(tenantId),
      details: { version, statements, bytes: new TextEncoder().encode(text).length },
    });
    return { cedar: text, version, updated_at: now };
  });
  await tellActiveSessions(host, tenantId, policy.version);
  return policy;
}

/** False when there was no policy to remove. */
export async function deletePolicy(host: IndexHost, tenantId: string, by?: AuditContext): Promise<boolean> {
  if (!readPolicy(host.kv)) return false;
  const version = host.transaction(() => {
    const version = writePolicy(host.kv, null, new Date().toISOString());
    host.audit(by, { action: "policy.deleted", target: tenantTarget(tenantId), details: { version } });
    return version;
  });
  await tellActiveSessions(host, tenantId, version);
  return true;
}

/** Sessions listed active once the change committed: any admitted after it hear the version in their admission's answer. */
async function tellActiveSessions(host: IndexHost, tenantId: string, version: number): Promise<void> {
  await tellPolicyChanged(host.env, tenantId, await activeSessionIds(host, tenantId, {}), version);
}
