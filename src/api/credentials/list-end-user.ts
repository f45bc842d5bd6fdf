/** `GET /v1/end-users/{subject}/credentials`: list credentials of an end user's (end_users:issue). */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { CredentialListSchema } from "../../vault/schemas";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { SubjectParamsSchema } from "../end-users/schemas";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { vaultOf } from "./shared";

export const route = createRoute({
  method: "get",
  path: "/v1/end-users/{subject}/credentials",
  operationId: "listEndUserCredentials",
  summary: "List credentials of an end user",
  description: "Type, header, origins, expiry and status of each; never a secret.",
  tags: ["Credentials"],
  security: bearerAuth("end_users:issue"),
  middleware: [requireScope("end_users:issue")] as const,
  request: { params: SubjectParamsSchema },
  responses: {
    200: jsonContent(CredentialListSchema, "The credentials by name, without their secrets."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  return c.json({ data: await vaultOf(c).list(c.req.valid("param").subject) }, 200);
};
