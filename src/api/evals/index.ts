/** The eval routes: run, list, read, cancel, compare. */
import type { App } from "../context";
import * as cancel from "./cancel";
import * as compare from "./compare";
import * as create from "./create";
import * as get from "./get";
import * as list from "./list";

export function registerEvalRoutes(app: App): void {
  app.openapi(create.route, create.handler);
  app.openapi(list.route, list.handler);
  // Before `/v1/evals/{id}`, which would take "compare" for an id.
  app.openapi(compare.route, compare.handler);
  app.openapi(get.route, get.handler);
  app.openapi(cancel.route, cancel.handler);
}
