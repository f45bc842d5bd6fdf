/** The audit log: the tenant's and the platform's. */
import type { App } from "../context";
import * as listAdmin from "./list-admin";
import * as listTenant from "./list-tenant";

export function registerAuditRoutes(app: App): void {
  app.openapi(listTenant.route, listTenant.handler);
  app.openapi(listAdmin.route, listAdmin.handler);
}
