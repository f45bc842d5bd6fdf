/** The A2A routes: an agent's card and its JSON-RPC endpoint. */
import type { App } from "../context";
import * as card from "./card";
import * as rpc from "./rpc";

export function registerA2aRoutes(app: App): void {
  app.openapi(card.route, card.handler);
  app.openapi(rpc.route, rpc.handler);
}
