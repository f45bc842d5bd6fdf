/** Platform administration: tenants, their limits, suspension and deletion, and their sessions. */
import type { App } from "../context";
import * as cancelSessions from "./cancel-sessions";
import * as deleteTenant from "./delete-tenant";
import * as tenantStorage from "./tenant-storage";
import * as getTenant from "./get-tenant";
import * as listSessions from "./list-sessions";
import * as listTenants from "./list-tenants";
import * as resealVaults from "./reseal-vaults";
import * as setLimits from "./set-limits";
import * as setJurisdiction from "./set-jurisdiction";
import * as setModels from "./set-models";
import * as setShards from "./set-shards";
import * as suspend from "./suspend";
import * as unsuspend from "./unsuspend";

export function registerAdminRoutes(app: App): void {
  app.openapi(listTenants.route, listTenants.handler);
  app.openapi(getTenant.route, getTenant.handler);
  app.openapi(setJurisdiction.route, setJurisdiction.handler);
  app.openapi(setLimits.route, setLimits.handler);
  app.openapi(setModels.route, setModels.handler);
  app.openapi(setShards.route, setShards.handler);
  app.openapi(suspend.route, suspend.handler);
  app.openapi(unsuspend.route, unsuspend.handler);
  app.openapi(listSessions.route, listSessions.handler);
  app.openapi(cancelSessions.route, cancelSessions.handler);
  app.openapi(deleteTenant.route, deleteTenant.handler);
  app.openapi(tenantStorage.route, tenantStorage.handler);
  app.openapi(resealVaults.route, resealVaults.handler);
}
