/** `GET /v1/tenant/policy`: the tenant's tool policy. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../../objects";
import type { AppEnv } from "../../context";
import { ApiError, AUTHENTICATED_ERRORS, errorResponses } from "../../errors";
import { requireScope } from "../../middleware/require-scope";
import { jsonContent } from "../../schemas";
import { bearerAuth } from "../../security";
import { TenantPolicySchema } from "./schemas";

export const NO_POLICY = "The tenant has no tool policy.";

export const route = createRoute({
  method: "get",
  path: "/v1/tenant/policy",
  operationId: "getTenantPolicy",
  summary: "Get your tenant's tool policy",
  tags: ["Tenant"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  responses: {
    200: jsonContent(TenantPolicySchema, "The policy."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { tenantId } = c.var.principal;
  const policy = await tenantIndexStub(c.env, tenantId).getPolicy(tenantId);
  if (!policy) throw new ApiError("not_found", NO_POLICY);
  return c.json(policy, 200);
};
