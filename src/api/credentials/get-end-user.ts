/** `GET /v1/end-users/{subject}/credentials/{name}`: read a credential of an end user's (end_users:issue). */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { CredentialSchema } from "../../vault/schemas";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { EndUserCredentialParamsSchema, vaultOf } from "./shared";

export const route = createRoute({
  method: "get",
  path: "/v1/end-users/{subject}/credentials/{name}",
  operationId: "getEndUserCredential",
  summary: "Read a credential of an end user",
  description: "Type, header, origins, expiry and status; never the secret.",
  tags: ["Credentials"],
  security: bearerAuth("end_users:issue"),
  middleware: [requireScope("end_users:issue")] as const,
  request: { params: EndUserCredentialParamsSchema },
  responses: {
    200: jsonContent(CredentialSchema, "The credential, without its secret."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  return c.json(await vaultOf(c).get(c.req.valid("param").subject, name), 200);
};
