/** `GET /v1/me`. */
import type { App } from "../context";
import * as get from "./get";

export function registerMeRoutes(app: App): void {
  app.openapi(get.route, get.handler);
}
