/** The tenant's status-webhook endpoints and their delivery log. */
import type { App } from "../../context";
import * as create from "./create";
import * as deleteEndpoint from "./delete";
import * as list from "./list";
import * as listDeliveries from "./list-deliveries";
import * as redeliver from "./redeliver";

export function registerStatusWebhookRoutes(app: App): void {
  app.openapi(create.route, create.handler);
  app.openapi(list.route, list.handler);
  app.openapi(deleteEndpoint.route, deleteEndpoint.handler);
  app.openapi(listDeliveries.route, listDeliveries.handler);
  app.openapi(redeliver.route, redeliver.handler);
}
