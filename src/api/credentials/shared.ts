/**
 * What the credential routes share: their path parameters, the write every PUT makes (the body
 * checked against the deployment's URL policy, the owner's limit), and their documented errors.
 */
import { z } from "@hono/zod-openapi";
import { VaultClient } from "../../vault/client";
import { toPutCredential } from "../../vault/put-body";
import { CredentialNameSchema, type PutCredentialRequest } from "../../vault/schemas";
import type { Credential } from "../../vault/types";
import { auditContext } from "../audit-context";
import type { AppContext } from "../context";
import { ApiError } from "../errors";
import { EndUserSubjectSchema } from "../end-users/schemas";

export const NameParamsSchema = z.object({ name: CredentialNameSchema.openapi({ param: { name: "name", in: "path" } }) });
export const EndUserCredentialParamsSchema = z.object({
  subject: EndUserSubjectSchema.openapi({ param: { name: "subject", in: "path" } }),
  name: CredentialNameSchema.openapi({ param: { name: "name", in: "path" } }),
});

export const PUT_DESCRIPTION =
  "Creates or replaces the credential. Its secret is sealed at rest and never shown again: responses, audit entries, events and exports carry its name, type, header and origins only. " +
  "The secret goes only to requests whose origin is in `allowed_origins`. 409 past the owner's limit; 503 `vault_unavailable` while the platform has no `VAULT_KEYS`.";

/** Without keys the answer is known before the vault is woken (which checks them too, for every caller). */
export function vaultOf(c: AppContext): VaultClient {
  if (!c.env.VAULT_KEYS) throw new ApiError("vault_unavailable");
  return new VaultClient(c.env, c.var.principal.tenantId);
}

/** `subject` null: the tenant's own credential. */
export async function putCredential(c: AppContext, subject: string | null, name: string, body: PutCredentialRequest): Promise<Credential> {
  const vault = vaultOf(c);
  const max = subject === null ? c.var.limits.max_credentials_per_tenant : c.var.limits.max_credentials_per_end_user;
  const checked = toPutCredential(body, { subject, name, max, now: Date.now() }, { allowPrivateUrls: c.var.config.allowPrivateUrls });
  if (!checked.ok) throw new ApiError("validation_failed", undefined, { errors: checked.errors });
  return vault.put(checked.value, auditContext(c));
}
