/** The tenant index's tool-policy calls: read, set and remove the tenant's policy, each change audited. */
import type { AuditContext } from "../../audit/types";
import { parsePolicyText, policyAnswer, readPolicy, writePolicy, type PolicyAnswer, type TenantPolicy } from "../tool-policy";
import type { IndexHost } from "./host";

const tenantTarget = (tenantId: string) => ({ type: "tenant", id: tenantId });

export function getPolicy(host: IndexHost): TenantPolicy | null {
  return readPolicy(host.kv);
}

export function currentPolicy(host: IndexHost, known: unknown): PolicyAnswer {
  return policyAnswer(host.kv, typeof known === "number" ? known : null);
}

export function putPolicy(host: IndexHost, tenantId: string, cedar: unknown, statements: number, by?: AuditContext): TenantPolicy {
  const text = parsePolicyText(cedar);
  const now = new Date().toISOString();
  return host.transaction(() => {
    const version = writePolicy(host.kv, text, now);
    host.audit(by, {
      action: "policy.updated",
      target: tenantTarget(tenantId),
      details: { version, statements, bytes: new TextEncoder().encode(text).length },
    });
    return { cedar: text, version, updated_at: now };
  });
}

/** False when there was no policy to remove. */
export function deletePolicy(host: IndexHost, tenantId: string, by?: AuditContext): boolean {
  if (!readPolicy(host.kv)) return false;
  return host.transaction(() => {
    const version = writePolicy(host.kv, null, new Date().toISOString());
    host.audit(by, { action: "policy.deleted", target: tenantTarget(tenantId), details: { version } });
    return true;
  });
}
