/**
 * `POST /v1/end-users/{subject}/revoke-tokens`: every token of the end user issued until now is
 * refused from the next request on (the cut-off rides on each request's admission).
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../objects";
import { auditContext } from "../audit-context";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { bearerAuth } from "../security";
import { SubjectParamsSchema } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/end-users/{subject}/revoke-tokens",
  operationId: "revokeEndUserTokens",
  summary: "Revoke an end user's tokens",
  description:
    "Tokens issued to this end user until now answer 401 from now on; tokens minted afterwards work. Audit-logged as `end_user.tokens_revoked`.",
  tags: ["Auth"],
  security: bearerAuth("end_users:issue"),
  middleware: [requireScope("end_users:issue")] as const,
  request: { params: SubjectParamsSchema },
  responses: {
    204: { description: "Revoked." },
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { subject } = c.req.valid("param");
  const { tenantId } = c.var.principal;
  await tenantIndexStub(c.env, tenantId).revokeEndUserTokens(tenantId, subject, Date.now(), auditContext(c));
  return c.body(null, 204);
};
