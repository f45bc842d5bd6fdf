/** The AG-UI route: a run of an agent as AG-UI events. */
import type { App } from "../context";
import * as run from "./run";

export function registerAgUiRoutes(app: App): void {
  app.openapi(run.route, run.handler);
}
