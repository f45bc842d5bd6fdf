/**
 * Per-route authorization after `authenticate`: a scope the principal must hold, or, for the
 * routes addressed by a tenant id, the right to administer that tenant.
 */
import type { MiddlewareHandler } from "hono";
import { canAdministerTenant, hasScope, type Scope } from "../../auth/principal";
import type { AppEnv } from "../context";
import { ApiError } from "../errors";

export function requireScope(scope: Scope): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!hasScope(c.var.principal, scope)) throw new ApiError("forbidden", `This operation requires the ${scope} scope.`);
    await next();
  };
}

/** At least one of `scopes`: a route whose operations each need one of them checks which further in. */
export function requireAnyScope(...scopes: Scope[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!scopes.some((scope) => hasScope(c.var.principal, scope)))
      throw new ApiError("forbidden", `This operation requires one of the scopes ${scopes.join(", ")}.`);
    await next();
  };
}

/**
 * Platform admins, or admins of the tenant named by the `param` path segment. The segment is
 * only compared here; it is validated by the route's schema before any store sees it.
 */
export function requireTenantAdmin(param = "tenant_id"): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const tenantId = c.req.param(param) ?? "";
    if (!canAdministerTenant(c.var.principal, tenantId)) {
      throw new ApiError("forbidden", "This operation requires platform:admin, or tenant:admin of this tenant.");
    }
    await next();
  };
}
