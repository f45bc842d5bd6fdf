/** The token routes: the exchange of an API key, and stream tokens. */
import type { App } from "../context";
import * as create from "./create";
import * as stream from "./stream";

export function registerTokenRoutes(app: App): void {
  app.openapi(create.route, create.handler);
  app.openapi(stream.route, stream.handler);
}
