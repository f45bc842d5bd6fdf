/**
 * `PUT /v1/tenant/settings`: replaces the tenant's settings as a whole. Each origin is checked
 * by the URL guard and stored normalized; sessions created afterwards, and every webhook call
 * from then on, are held to the list.
 */
import { createRoute, type RouteHandler, type z } from "@hono/zod-openapi";
import { normalizeOrigin } from "../../egress/allowed-origins";
import { tenantIndexStub } from "../../objects";
import type { TenantSettings } from "../../tenants/types";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses, type FieldError } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonBody, jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { PutTenantSettingsRequestSchema, TenantSettingsSchema } from "./schemas";
import { auditContext } from "../audit-context";

export const route = createRoute({
  method: "put",
  path: "/v1/tenant/settings",
  operationId: "putTenantSettings",
  summary: "Set your tenant's settings",
  description: "`webhook_origins`: when set, webhook tools must use one of these origins (https unless the platform allows private URLs). Each is one origin, matched exactly: wildcards are refused.",
  tags: ["Tenant"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  request: { body: jsonBody(PutTenantSettingsRequestSchema, { webhook_origins: ["https://hooks.example.com"] }) },
  responses: {
    200: jsonContent(TenantSettingsSchema, "The settings as stored."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS),
  },
});

export type SettingsResult = { ok: true; settings: TenantSettings } | { ok: false; errors: FieldError[] };

/** Pure: the settings as stored (origins normalized, repeats dropped), or every bad field. */
export function normalizeSettings(body: z.infer<typeof PutTenantSettingsRequestSchema>, options: { allowPrivateUrls: boolean }): SettingsResult {
  if (body.webhook_origins === null) return { ok: true, settings: { webhook_origins: null } };
  const errors: FieldError[] = [];
  const origins: string[] = [];
  body.webhook_origins.forEach((raw, i) => {
    const result = normalizeOrigin(raw, options);
    if (result.ok) origins.push(result.origin);
    else errors.push({ path: `body.webhook_origins.${i}`, message: result.message });
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, settings: { webhook_origins: [...new Set(origins)] } };
}

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { tenantId } = c.var.principal;
  const result = normalizeSettings(c.req.valid("json"), { allowPrivateUrls: c.var.config.allowPrivateUrls });
  if (!result.ok) throw new ApiError("validation_failed", undefined, { errors: result.errors });
  return c.json(await tenantIndexStub(c.env, tenantId).putSettings(tenantId, result.settings, auditContext(c)), 200);
};
