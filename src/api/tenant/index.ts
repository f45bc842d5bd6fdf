/** The caller's own tenant: its view, its settings, the webhook secret and its status webhooks. */
import type { App } from "../context";
import * as get from "./get";
import * as getSettings from "./get-settings";
import * as getWebhookSecret from "./get-webhook-secret";
import * as putSettings from "./put-settings";
import * as rotateWebhookSecret from "./rotate-webhook-secret";
import { registerTenantPolicyRoutes } from "./policy";
import { registerStatusWebhookRoutes } from "./webhooks";

export function registerTenantRoutes(app: App): void {
  app.openapi(get.route, get.handler);
  app.openapi(getWebhookSecret.route, getWebhookSecret.handler);
  app.openapi(rotateWebhookSecret.route, rotateWebhookSecret.handler);
  app.openapi(getSettings.route, getSettings.handler);
  app.openapi(putSettings.route, putSettings.handler);
  registerStatusWebhookRoutes(app);
  registerTenantPolicyRoutes(app);
}
