/** The dataset routes: create, list, read, delete, and its items (add, import JSONL, from a session, replace, delete). */
import type { App } from "../context";
import * as addItems from "./add-items";
import * as create from "./create";
import * as deleteDataset from "./delete";
import * as deleteItem from "./delete-item";
import * as fromSession from "./from-session";
import * as get from "./get";
import * as importItems from "./import";
import * as list from "./list";
import * as replaceItem from "./replace-item";

export function registerDatasetRoutes(app: App): void {
  app.openapi(create.route, create.handler);
  app.openapi(list.route, list.handler);
  app.openapi(get.route, get.handler);
  app.openapi(deleteDataset.route, deleteDataset.handler);
  app.openapi(addItems.route, addItems.handler);
  app.openapi(fromSession.route, fromSession.handler);
  app.openapi(importItems.route, importItems.handler);
  app.openapi(replaceItem.route, replaceItem.handler);
  app.openapi(deleteItem.route, deleteItem.handler);
}
