/** `GET /v1/tenant/credentials`: list credentials of the tenant's own (tenant:admin). */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { CredentialListSchema } from "../../vault/schemas";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { vaultOf } from "./shared";

export const route = createRoute({
  method: "get",
  path: "/v1/tenant/credentials",
  operationId: "listTenantCredentials",
  summary: "List credentials of the tenant",
  description: "Type, header, origins, expiry and status of each; never a secret.",
  tags: ["Credentials"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  request: {},
  responses: {
    200: jsonContent(CredentialListSchema, "The credentials by name, without their secrets."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  return c.json({ data: await vaultOf(c).list(null) }, 200);
};
