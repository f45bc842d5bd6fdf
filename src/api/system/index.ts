/** The public system routes: health, the OpenAPI document, the API reference, the console, the JWKS. */
import type { App } from "../context";
import * as consolePage from "./console";
import * as docs from "./docs";
import * as health from "./health";
import * as jwks from "./jwks";
import * as openapiJson from "./openapi-json";

export function registerSystemRoutes(app: App): void {
  app.openapi(health.route, health.handler);
  app.openapi(openapiJson.route, openapiJson.handler(app));
  app.openapi(docs.route, docs.handler);
  docs.registerDocsAssets(app);
  app.openapi(consolePage.route, consolePage.handler);
  consolePage.registerConsoleAssets(app);
  app.openapi(jwks.route, jwks.handler);
}
