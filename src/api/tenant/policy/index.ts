/** The tenant's tool policy: read, set, remove, its schema, and the check of one call. */
import type { App } from "../../context";
import * as check from "./check";
import * as deletePolicy from "./delete";
import * as get from "./get";
import * as getSchema from "./get-schema";
import * as put from "./put";

export function registerTenantPolicyRoutes(app: App): void {
  app.openapi(getSchema.route, getSchema.handler);
  app.openapi(get.route, get.handler);
  app.openapi(put.route, put.handler);
  app.openapi(deletePolicy.route, deletePolicy.handler);
  app.openapi(check.route, check.handler);
}
