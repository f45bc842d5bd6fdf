/** API key management for tenant admins. */
import type { App } from "../context";
import * as create from "./create";
import * as list from "./list";
import * as revoke from "./revoke";

export function registerApiKeyRoutes(app: App): void {
  app.openapi(create.route, create.handler);
  app.openapi(list.route, list.handler);
  app.openapi(revoke.route, revoke.handler);
}
