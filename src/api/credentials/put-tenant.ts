/** `PUT /v1/tenant/credentials/{name}`: connect a credential of the tenant's own (tenant:admin). */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { CredentialSchema, PutCredentialRequestSchema } from "../../vault/schemas";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonBody, jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { NameParamsSchema, PUT_DESCRIPTION, putCredential } from "./shared";

export const route = createRoute({
  method: "put",
  path: "/v1/tenant/credentials/{name}",
  operationId: "putTenantCredential",
  summary: "Connect a credential of the tenant",
  description: PUT_DESCRIPTION,
  tags: ["Credentials"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  request: {
    params: NameParamsSchema,
    body: jsonBody(PutCredentialRequestSchema, { type: "bearer", value: "ghp_example", allowed_origins: ["https://api.github.com"] }),
  },
  responses: {
    200: jsonContent(CredentialSchema, "The credential as stored, without its secret."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  return c.json(await putCredential(c, null, name, c.req.valid("json")), 200);
};
