/**
 * The `CredentialSource` egress is handed (src/egress/credentials.ts), over a tenant's vault:
 * lookups for one session's end user (null: a session no end user created, the tenant's only).
 */
import type { CredentialLookup, CredentialSource } from "../egress/credentials";
import { vaultStub } from "../objects";

export function vaultCredentialSource(env: Cloudflare.Env, tenantId: string, subject: string | null): CredentialSource {
  const stub = vaultStub(env, tenantId);
  return {
    get: async (name) => (await stub.obtain(tenantId, { subject, name })) as CredentialLookup,
    refresh: async (name, rejected) => (await stub.refresh(tenantId, { subject, name, rejected })) as CredentialLookup,
  };
}
