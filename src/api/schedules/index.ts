/** The schedule routes: create, list, read, pause and resume, delete, and each schedule's firings. */
import type { App } from "../context";
import * as create from "./create";
import * as deleteSchedule from "./delete";
import * as get from "./get";
import * as list from "./list";
import * as listFirings from "./list-firings";
import * as update from "./update";

export function registerScheduleRoutes(app: App): void {
  app.openapi(create.route, create.handler);
  app.openapi(list.route, list.handler);
  app.openapi(get.route, get.handler);
  app.openapi(update.route, update.handler);
  app.openapi(deleteSchedule.route, deleteSchedule.handler);
  app.openapi(listFirings.route, listFirings.handler);
}
