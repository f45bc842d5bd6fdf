/**
 * `PUT /v1/tenant/settings`: replaces the tenant's settings as a whole. Each origin is checked
 * by the URL guard and stored normalized; sessions created afterwards, and every webhook call
 * from then on, are held to the list. The traces endpoint is held to the same rule as a webhook
 * tool's URL, against the origins of this same request; its header values are never shown again.
 */
import { createRoute, type RouteHandler, type z } from "@hono/zod-openapi";
import { normalizeOrigin } from "../../egress/allowed-origins";
import { MASKED_VALUE } from "../../shared/secret-mask";
import { checkCallUrl, type ToolCheckOptions } from "../../sessions/tool-specs";
import type { TracesSettings } from "../../session-config/trace-types";
import { tenantIndexStub } from "../../objects";
import { shownSettings } from "../../tenants/tenant-settings";
import { parseRedaction } from "../../shared/redaction/settings";
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
  description:
    "`webhook_origins`: when set, webhook tools must use one of these origins (https unless the platform allows private URLs). Each is one origin, matched exactly: wildcards are refused. `session_retention_days`: idle and finished sessions are erased this many days after their last change. " +
    "`traces`: each run's trace is exported to this OpenTelemetry collector (OTLP/HTTP JSON); absent or null: none. " +
    "`redaction`: the detectors run on user input, tool output and/or model output before it is stored or sent to a model; absent or null: none.",
  tags: ["Tenant"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  request: {
    body: jsonBody(PutTenantSettingsRequestSchema, {
      webhook_origins: ["https://hooks.example.com"],
      traces: { endpoint: "https://otel.example.com", headers: { Authorization: "Bearer <token>" } },
      redaction: { detectors: ["email", "credit_card", "secret"], apply_to: ["user_input", "tool_output"] },
    }),
  },
  responses: {
    200: jsonContent(TenantSettingsSchema, "The settings as stored."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS),
  },
});

export type SettingsResult = { ok: true; settings: TenantSettings } | { ok: false; errors: FieldError[] };

/** Pure: the settings as stored (origins normalized, repeats dropped), or every bad field. */
export function normalizeSettings(
  body: z.infer<typeof PutTenantSettingsRequestSchema>,
  options: { allowPrivateUrls: boolean },
): SettingsResult {
  const retention = body.session_retention_days ?? null;
  const errors: FieldError[] = [];
  let webhookOrigins: string[] | null = null;
  if (body.webhook_origins !== null) {
    const origins: string[] = [];
    body.webhook_origins.forEach((raw, i) => {
      const result = normalizeOrigin(raw, options);
      if (result.ok) origins.push(result.origin);
      else errors.push({ path: `body.webhook_origins.${i}`, message: result.message });
    });
    webhookOrigins = [...new Set(origins)];
  }
  const traces = body.traces ? normalizeTraces(body.traces, { allowPrivateUrls: options.allowPrivateUrls, webhookOrigins }, errors) : null;
  return errors.length > 0
    ? { ok: false, errors }
    : {
        ok: true,
        settings: {
          webhook_origins: webhookOrigins,
          session_retention_days: retention,
          traces,
          ...(body.redaction ? { redaction: parseRedaction(body.redaction) } : {}),
        },
      };
}

function normalizeTraces(traces: TracesSettings, options: ToolCheckOptions, errors: FieldError[]): TracesSettings | null {
  const endpoint = checkCallUrl("body.traces.endpoint", traces.endpoint, options);
  if (!endpoint.ok) errors.push(endpoint.error);
  for (const [name, value] of Object.entries(traces.headers ?? {})) {
    // A value read back from a response: storing the mask would break the export unseen.
    if (value === MASKED_VALUE)
      errors.push({ path: `body.traces.headers.${name}`, message: "Send the header's value itself: responses show it masked." });
  }
  if (!endpoint.ok) return null;
  return {
    endpoint: endpoint.url,
    ...(traces.headers ? { headers: traces.headers } : {}),
    capture_content: traces.capture_content === true,
  };
}

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { tenantId } = c.var.principal;
  const result = normalizeSettings(c.req.valid("json"), { allowPrivateUrls: c.var.config.allowPrivateUrls });
  if (!result.ok) throw new ApiError("validation_failed", undefined, { errors: result.errors });
  return c.json(shownSettings(await tenantIndexStub(c.env, tenantId).putSettings(tenantId, result.settings, auditContext(c))), 200);
};
