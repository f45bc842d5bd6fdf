/** The credential routes: an end user's credentials (end_users:issue) and the tenant's own (tenant:admin). */
import type { App } from "../context";
import * as deleteEndUser from "./delete-end-user";
import * as deleteTenant from "./delete-tenant";
import * as getEndUser from "./get-end-user";
import * as getTenant from "./get-tenant";
import * as listEndUser from "./list-end-user";
import * as listTenant from "./list-tenant";
import * as putEndUser from "./put-end-user";
import * as putTenant from "./put-tenant";

export function registerCredentialRoutes(app: App): void {
  app.openapi(listEndUser.route, listEndUser.handler);
  app.openapi(putEndUser.route, putEndUser.handler);
  app.openapi(getEndUser.route, getEndUser.handler);
  app.openapi(deleteEndUser.route, deleteEndUser.handler);
  app.openapi(listTenant.route, listTenant.handler);
  app.openapi(putTenant.route, putTenant.handler);
  app.openapi(getTenant.route, getTenant.handler);
  app.openapi(deleteTenant.route, deleteTenant.handler);
}
