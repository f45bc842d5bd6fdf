/** The agent routes: create, list, read, change (a new version), archive, versions and aliases. */
import type { App } from "../context";
import * as archive from "./archive";
import * as create from "./create";
import * as deleteAlias from "./delete-alias";
import * as get from "./get";
import * as getVersion from "./get-version";
import * as list from "./list";
import * as listVersions from "./list-versions";
import * as promoteCanary from "./promote-canary";
import * as setAlias from "./set-alias";
import * as update from "./update";

export function registerAgentRoutes(app: App): void {
  app.openapi(create.route, create.handler);
  app.openapi(list.route, list.handler);
  app.openapi(get.route, get.handler);
  app.openapi(update.route, update.handler);
  app.openapi(archive.route, archive.handler);
  app.openapi(listVersions.route, listVersions.handler);
  app.openapi(getVersion.route, getVersion.handler);
  app.openapi(setAlias.route, setAlias.handler);
  app.openapi(deleteAlias.route, deleteAlias.handler);
  app.openapi(promoteCanary.route, promoteCanary.handler);
}
