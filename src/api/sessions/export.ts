/** `GET /v1/sessions/{id}/export`: the session, every message, tool call and step, as one streamed JSON document. */
import { createRoute, type RouteHandler, z } from "@hono/zod-openapi";
import { loadOwnedSession } from "../../sessions/access";
import { EXPORT_FORMAT, exportChunks, toByteStream } from "../../sessions/export";
import { tenantIndexStub } from "../../objects";
import { auditContext } from "../audit-context";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { bearerAuth } from "../security";
import { StepSchema } from "./list-steps";
import { MessageSchema, SessionIdParamsSchema, SessionSchema, ToolCallSchema } from "./schemas";

export const SessionExportSchema = z
  .object({
    format: z.literal(EXPORT_FORMAT),
    exported_at: z.string().openapi({ format: "date-time" }),
    session: SessionSchema,
    messages: z.array(MessageSchema),
    tool_calls: z.array(ToolCallSchema).openapi({ description: "Every tool call, with its decision, oldest first." }),
    steps: z.array(StepSchema).openapi({ description: "The session's kept steps (its newest 1,000), oldest first." }),
  })
  .openapi("SessionExport");

export const route = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/export",
  operationId: "exportSession",
  summary: "Export a session",
  description:
    "The whole session as one JSON document, however long: the session as `GET /v1/sessions/{id}` shows it, then every message, tool call " +
    "(with its decision) and step. The body streams as the session object is read page by page; a running session is exported as saved " +
    "at each page (at most 200 items and about 256 KiB of text each). A failure after the first bytes cuts the body off, so a document that parses " +
    "is complete. Each tenant may start `exports_per_minute` exports a minute; one more is a 429 with `Retry-After`.",
  tags: ["Sessions"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { params: SessionIdParamsSchema },
  responses: {
    200: {
      description: "The export.",
      headers: z.object({ "Content-Disposition": z.string().openapi({ description: "`attachment`, named after the session." }) }),
      content: { "application/json": { schema: SessionExportSchema } },
    },
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const { session, client } = await loadOwnedSession(c.env, c.var.principal, id);
  // Recorded before the first byte: an export that began is one the log shows.
  const { tenantId } = c.var.principal;
  await tenantIndexStub(c.env, tenantId).recordAudit(tenantId, [
    { change: { action: "session.exported", target: { type: "session", id: session.id } }, by: auditContext(c) },
  ]);
  const body = toByteStream(exportChunks(session, client, new Date().toISOString()));
  const response = new Response(body, {
    status: 200,
    headers: { "Content-Type": "application/json; charset=utf-8", "Content-Disposition": `attachment; filename="${session.id}.json"` },
  });
  return response as never;
};
