/** The AI SDK chat routes: a turn, its stream resumed, and its history. */
import type { App } from "../context";
import * as history from "./history";
import * as resume from "./resume";
import * as send from "./send";

export function registerChatRoutes(app: App): void {
  app.openapi(send.route, send.handler);
  app.openapi(resume.route, resume.handler);
  app.openapi(history.route, history.handler);
}
