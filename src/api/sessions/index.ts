/** The session routes: create, list, read, control, watch and erase sessions, and answer their tool calls. */
import type { App } from "../context";
import * as addMessage from "./add-message";
import * as approveToolCall from "./approve-tool-call";
import * as cancel from "./cancel";
import * as create from "./create";
import * as fork from "./fork";
import * as deleteSession from "./delete";
import * as denyToolCall from "./deny-tool-call";
import * as events from "./events";
import { EventFrameSchema } from "./event-schemas";
import * as exportSession from "./export";
import * as get from "./get";
import * as list from "./list";
import * as listMessages from "./list-messages";
import * as listSteps from "./list-steps";
import * as listToolCalls from "./list-tool-calls";
import * as pause from "./pause";
import * as resume from "./resume";
import * as submitToolOutput from "./submit-tool-output";
import * as update from "./update";

export function registerSessionRoutes(app: App): void {
  app.openapi(create.route, create.handler);
  app.openapi(list.route, list.handler);
  app.openapi(get.route, get.handler);
  app.openapi(update.route, update.handler);
  app.openapi(deleteSession.route, deleteSession.handler);
  app.openapi(listMessages.route, listMessages.handler);
  app.openapi(addMessage.route, addMessage.handler);
  app.openapi(fork.route, fork.handler);
  app.openapi(cancel.route, cancel.handler);
  app.openapi(pause.route, pause.handler);
  app.openapi(resume.route, resume.handler);
  app.openapi(listSteps.route, listSteps.handler);
  app.openapi(listToolCalls.route, listToolCalls.handler);
  app.openapi(approveToolCall.route, approveToolCall.handler);
  app.openapi(denyToolCall.route, denyToolCall.handler);
  app.openapi(submitToolOutput.route, submitToolOutput.handler);
  // Named by the events stream's content schema, a reference no zod schema follows.
  app.openAPIRegistry.register("EventFrame", EventFrameSchema);
  app.openapi(events.route, events.handler);
  app.openapi(exportSession.route, exportSession.handler);
}
