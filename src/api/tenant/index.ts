/** The caller's own tenant: its view and the webhook secret. */
import type { App } from "../context";
import * as get from "./get";
import * as getWebhookSecret from "./get-webhook-secret";
import * as rotateWebhookSecret from "./rotate-webhook-secret";

export function registerTenantRoutes(app: App): void {
  app.openapi(get.route, get.handler);
  app.openapi(getWebhookSecret.route, getWebhookSecret.handler);
  app.openapi(rotateWebhookSecret.route, rotateWebhookSecret.handler);
}
