/** `GET /v1/tenant/policy/schema`: the Cedar schema policies are validated against, to validate locally. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { CEDAR_SCHEMA } from "../../../policy/schema";
import type { AppEnv } from "../../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../../errors";
import { requireScope } from "../../middleware/require-scope";
import { jsonContent } from "../../schemas";
import { bearerAuth } from "../../security";
import { PolicySchemaDocumentSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/tenant/policy/schema",
  operationId: "getTenantPolicySchema",
  summary: "Get the Cedar schema of tool policies",
  tags: ["Tenant"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  responses: {
    200: jsonContent(PolicySchemaDocumentSchema, "The schema."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = (c) => c.json({ cedar_schema: CEDAR_SCHEMA }, 200);
