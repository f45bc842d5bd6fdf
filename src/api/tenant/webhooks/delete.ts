/** `DELETE /v1/tenant/webhooks/{id}`: removes an endpoint and its delivery log; what it was still owed is not sent. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../../objects";
import type { AppEnv } from "../../context";
import { ApiError, AUTHENTICATED_ERRORS, errorResponses } from "../../errors";
import { requireScope } from "../../middleware/require-scope";
import { bearerAuth } from "../../security";
import { ENDPOINT_NOT_FOUND, EndpointParamsSchema, isEndpointId } from "./schemas";
import { auditContext } from "../../audit-context";

export const route = createRoute({
  method: "delete",
  path: "/v1/tenant/webhooks/{id}",
  operationId: "deleteWebhookEndpoint",
  summary: "Delete a status-webhook endpoint",
  description: "Its delivery log goes with it, and deliveries it was still owed are not sent.",
  tags: ["Tenant"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  request: { params: EndpointParamsSchema },
  responses: {
    204: { description: "Deleted." },
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const { tenantId } = c.var.principal;
  if (!isEndpointId(id) || !(await tenantIndexStub(c.env, tenantId).deleteWebhookEndpoint(tenantId, id, auditContext(c))))
    throw new ApiError("not_found", ENDPOINT_NOT_FOUND);
  return c.body(null, 204);
};
