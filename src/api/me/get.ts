/** `GET /v1/me`: who the credential is, for pages and SDKs that hold a token and need its tenant, subject and scopes. */
import { createRoute, type RouteHandler, z } from "@hono/zod-openapi";
import { principalKind } from "../../auth/principal";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";

export const MeSchema = z
  .object({
    tenant_id: z.string(),
    sub: z.string().openapi({
      description: "The principal: `created_by` of what it makes (`end_user:<subject>` for an end user, `key:<key id>` for an API key).",
    }),
    kind: z.enum(["user", "api_key", "end_user", "platform"]),
    scopes: z.array(z.string()).openapi({ description: "The scopes the credential holds, as given (what they imply is not spelled out)." }),
    expires_at: z.string().nullable().openapi({ description: "When the credential stops working; null when it has no expiry." }),
    metadata: z
      .record(z.string(), z.string())
      .nullable()
      .openapi({ description: "An end-user token's metadata, as its backend gave it; null otherwise." }),
  })
  .openapi("Me");

export const route = createRoute({
  method: "get",
  path: "/v1/me",
  operationId: "getMe",
  summary: "Who this credential is",
  tags: ["Auth"],
  security: bearerAuth(),
  responses: {
    200: jsonContent(MeSchema, "The credential's principal."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const principal = c.var.principal;
  c.header("Cache-Control", "no-store");
  return c.json(
    {
      tenant_id: principal.tenantId,
      sub: principal.subject,
      kind: principalKind(principal),
      scopes: [...principal.scopes],
      expires_at: principal.expiresAt === undefined ? null : new Date(principal.expiresAt).toISOString(),
      metadata: principal.endUserMetadata ?? null,
    },
    200,
  );
};
