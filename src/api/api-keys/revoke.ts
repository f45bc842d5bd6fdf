/**
 * `DELETE /v1/api-keys/{key_id}`: revokes a key at once, including tokens exchanged from it, and
 * disables the schedules it created.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { describeError, log } from "../../log";
import { tenantIndexStub } from "../../objects";
import type { AppEnv } from "../context";
import { SchedulerClient } from "../schedules/scheduler-client";
import { ApiError, AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { bearerAuth } from "../security";
import { KeyIdParamsSchema } from "./schemas";
import { auditContext } from "../audit-context";

export const route = createRoute({
  method: "delete",
  path: "/v1/api-keys/{key_id}",
  operationId: "revokeApiKey",
  summary: "Revoke an API key",
  description:
    "Revoking a key twice is not an error; the first revocation time is kept. Schedules created with the key are disabled for good.",
  tags: ["API keys"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  request: { params: KeyIdParamsSchema },
  responses: {
    204: { description: "Revoked." },
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { key_id: keyId } = c.req.valid("param");
  const { tenantId } = c.var.principal;
  const found = await tenantIndexStub(c.env, tenantId).revokeApiKey(tenantId, keyId, Date.now(), auditContext(c));
  if (!found) throw new ApiError("not_found", "No such API key.");
  try {
    await new SchedulerClient(c.env, tenantId).disableForKey(keyId, Date.now());
  } catch (error) {
    // The key is revoked either way: each schedule checks its key when it fires, and stops then.
    log("warn", "schedules_not_disabled", { request_id: c.var.requestId, key_id: keyId, error: describeError(error).message });
  }
  return c.body(null, 204);
};
