/**
 * The one check of the tenant an administrative write names, before the write reaches the
 * tenant's index (which would bind, and so create, any id it is given).
 */
import { tenantRegistryStub } from "../../objects";
import { ApiError } from "../errors";

/**
 * What a write does with an id the registry never recorded: setting limits or models provisions
 * the tenant before its first request (it is then listed, and can be deleted); suspending,
 * lifting or cancelling has nothing to act on, so a typo is a 404 rather than a new tenant.
 */
export type UnknownTenant = "provision" | "not_found";

/** Refuses a deleted tenant, or one being deleted, with 409 (the registry still shows its deletion), and an unknown one as `unknown` says. */
export async function requireLiveTenant(env: Cloudflare.Env, tenantId: string, unknown: UnknownTenant): Promise<void> {
  const registry = tenantRegistryStub(env);
  const [deletion, known] = await Promise.all([registry.deletion(tenantId), registry.knows(tenantId)]);
  if (deletion)
    throw new ApiError("conflict", deletion.finished_at === null ? "This tenant is being deleted." : "This tenant was deleted.");
  if (!known && unknown === "not_found") throw new ApiError("not_found", "No tenant with this id.");
}
