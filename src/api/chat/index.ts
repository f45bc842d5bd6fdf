/** The AI SDK chat routes: a turn, and its stream resumed. */
import type { App } from "../context";
import * as resume from "./resume";
import * as send from "./send";

export function registerChatRoutes(app: App): void {
  app.openapi(send.route, send.handler);
  app.openapi(resume.route, resume.handler);
}
