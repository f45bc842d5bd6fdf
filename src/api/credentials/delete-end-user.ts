/** `DELETE /v1/end-users/{subject}/credentials/{name}`: delete a credential of an end user's (end_users:issue). */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { auditContext } from "../audit-context";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { bearerAuth } from "../security";
import { EndUserCredentialParamsSchema, vaultOf } from "./shared";

export const route = createRoute({
  method: "delete",
  path: "/v1/end-users/{subject}/credentials/{name}",
  operationId: "deleteEndUserCredential",
  summary: "Delete a credential of an end user",
  description: "The secret is erased at once. Audit-logged as `credential.deleted`.",
  tags: ["Credentials"],
  security: bearerAuth("end_users:issue"),
  middleware: [requireScope("end_users:issue")] as const,
  request: { params: EndUserCredentialParamsSchema },
  responses: {
    204: { description: "Deleted; tools naming it get `credential_missing` from their next call." },
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  await vaultOf(c).remove(c.req.valid("param").subject, name, auditContext(c));
  return c.body(null, 204);
};
