/** The token exchange route. */
import type { App } from "../context";
import * as create from "./create";

export function registerTokenRoutes(app: App): void {
  app.openapi(create.route, create.handler);
}
