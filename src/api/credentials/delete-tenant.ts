/** `DELETE /v1/tenant/credentials/{name}`: delete a credential of the tenant's own (tenant:admin). */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { auditContext } from "../audit-context";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { bearerAuth } from "../security";
import { NameParamsSchema, vaultOf } from "./shared";

export const route = createRoute({
  method: "delete",
  path: "/v1/tenant/credentials/{name}",
  operationId: "deleteTenantCredential",
  summary: "Delete a credential of the tenant",
  description: "The secret is erased at once. Audit-logged as `credential.deleted`.",
  tags: ["Credentials"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  request: { params: NameParamsSchema },
  responses: {
    204: { description: "Deleted; tools naming it get `credential_missing` from their next call." },
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  await vaultOf(c).remove(null, name, auditContext(c));
  return c.body(null, 204);
};
