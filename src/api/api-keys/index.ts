/** API key management for tenant admins. */
import type { App } from "../context";
import * as create from "./create";
import * as list from "./list";
import * as revoke from "./revoke";
import * as update from "./update";

export function registerApiKeyRoutes(app: App): void {
  app.openapi(create.route, create.handler);
  app.openapi(list.route, list.handler);
  app.openapi(update.route, update.handler);
  app.openapi(revoke.route, revoke.handler);
}
