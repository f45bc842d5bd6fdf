/**
 * `PUT /v1/admin/tenants/{tenant_id}/models`: narrows the models a tenant's sessions may choose
 * to a subset of the platform's `MODELS`, or removes the narrowing with `null`. Sessions
 * created before keep their model.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { uncoveredModels } from "../../models/catalog";
import { tenantIndexStub } from "../../objects";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonBody, jsonContent, TenantIdParamsSchema } from "../schemas";
import { platformAdminAuth } from "../security";
import { TenantConfigSchema, TenantModelsSchema } from "./schemas";
import { auditContext } from "../audit-context";
import { requireLiveTenant } from "./live-tenant";

export const route = createRoute({
  method: "put",
  path: "/v1/admin/tenants/{tenant_id}/models",
  operationId: "setTenantModels",
  summary: "Narrow a tenant's models",
  description:
    "Each entry must be allowed by the platform's `MODELS`; a session that names another model is refused with 400. " +
    "Like setting limits, it provisions a tenant id never seen; a deleted tenant, or one being deleted, is 409.",
  tags: ["Admin"],
  security: platformAdminAuth(),
  middleware: [requireScope("platform:admin")] as const,
  request: {
    params: TenantIdParamsSchema,
    body: jsonBody(TenantModelsSchema, { models: ["anthropic:claude-sonnet-4-5", "openai:gpt-4.1-mini"] }),
  },
  responses: {
    200: jsonContent(TenantConfigSchema, "The tenant's config with its models."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { tenant_id: tenantId } = c.req.valid("param");
  await requireLiveTenant(c.env, tenantId, "provision");
  const { models } = c.req.valid("json");
  if (models !== null) {
    const uncovered = uncoveredModels(c.var.config.models, models);
    if (uncovered.length > 0) {
      throw new ApiError("validation_failed", "Some models are not offered by the platform.", {
        errors: uncovered.map((model) => ({
          path: `body.models.${models.indexOf(model)}`,
          message: `"${model}" is not allowed by MODELS.`,
        })),
      });
    }
  }
  const config = await tenantIndexStub(c.env, tenantId).setAllowedModels(tenantId, models, auditContext(c));
  return c.json(config, 200);
};
