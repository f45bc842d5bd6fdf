/** Usage and cost: the tenant's own, and the platform's across tenants. */
import type { App } from "../context";
import * as admin from "./admin";
import * as tenant from "./tenant";

export function registerUsageRoutes(app: App): void {
  app.openapi(tenant.route, tenant.handler);
  app.openapi(admin.route, admin.handler);
}
