/** `GET /v1/tenant/credentials/{name}`: read a credential of the tenant's own (tenant:admin). */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { CredentialSchema } from "../../vault/schemas";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { NameParamsSchema, vaultOf } from "./shared";

export const route = createRoute({
  method: "get",
  path: "/v1/tenant/credentials/{name}",
  operationId: "getTenantCredential",
  summary: "Read a credential of the tenant",
  description: "Type, header, origins, expiry and status; never the secret.",
  tags: ["Credentials"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  request: { params: NameParamsSchema },
  responses: {
    200: jsonContent(CredentialSchema, "The credential, without its secret."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  return c.json(await vaultOf(c).get(null, name), 200);
};
