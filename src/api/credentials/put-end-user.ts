/** `PUT /v1/end-users/{subject}/credentials/{name}`: connect a credential of an end user's (end_users:issue). */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { CredentialSchema, PutCredentialRequestSchema } from "../../vault/schemas";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonBody, jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { EndUserCredentialParamsSchema, PUT_DESCRIPTION, putCredential } from "./shared";

export const route = createRoute({
  method: "put",
  path: "/v1/end-users/{subject}/credentials/{name}",
  operationId: "putEndUserCredential",
  summary: "Connect a credential of an end user",
  description: PUT_DESCRIPTION,
  tags: ["Credentials"],
  security: bearerAuth("end_users:issue"),
  middleware: [requireScope("end_users:issue")] as const,
  request: {
    params: EndUserCredentialParamsSchema,
    body: jsonBody(PutCredentialRequestSchema, { type: "bearer", value: "ghp_example", allowed_origins: ["https://api.github.com"] }),
  },
  responses: {
    200: jsonContent(CredentialSchema, "The credential as stored, without its secret."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  return c.json(await putCredential(c, c.req.valid("param").subject, name, c.req.valid("json")), 200);
};
