/** The memory routes: write, read, delete and list versions of items; search; list namespaces. */
import type { App } from "../context";
import * as deleteItem from "./delete";
import * as get from "./get";
import * as namespaces from "./namespaces";
import * as put from "./put";
import * as search from "./search";
import * as versions from "./versions";

export function registerMemoryRoutes(app: App): void {
  app.openapi(put.route, put.handler);
  app.openapi(get.route, get.handler);
  app.openapi(deleteItem.route, deleteItem.handler);
  app.openapi(versions.route, versions.handler);
  app.openapi(search.route, search.handler);
  app.openapi(namespaces.route, namespaces.handler);
}
