/** `DELETE /v1/tenant/policy`: removes the tenant's tool policy; calls from the next one on are judged without it. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../../objects";
import { auditContext } from "../../audit-context";
import type { AppEnv } from "../../context";
import { ApiError, AUTHENTICATED_ERRORS, errorResponses } from "../../errors";
import { requireScope } from "../../middleware/require-scope";
import { bearerAuth } from "../../security";
import { NO_POLICY } from "./get";

export const route = createRoute({
  method: "delete",
  path: "/v1/tenant/policy",
  operationId: "deleteTenantPolicy",
  summary: "Remove your tenant's tool policy",
  tags: ["Tenant"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  responses: {
    204: { description: "Removed." },
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { tenantId } = c.var.principal;
  if (!(await tenantIndexStub(c.env, tenantId).deletePolicy(tenantId, auditContext(c)))) throw new ApiError("not_found", NO_POLICY);
  return c.body(null, 204);
};
