/**
 * `GET /v1/sessions`: the tenant's sessions from its index, newest first. Without tenant:admin
 * a caller lists only its own; a `created_by` naming someone else gives an empty page.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../objects";
import { ConditionalHeadersSchema, conditionalJson, conditionalResponses } from "../conditional";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { bearerAuth } from "../security";
import { listFilterFor } from "../../sessions/access";
import { metadataFilterOf } from "./metadata-filter";
import { SessionListQuerySchema, SessionSummaryPageSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/sessions",
  operationId: "listSessions",
  summary: "List sessions",
  description:
    "Without tenant:admin, only the sessions you created are listed; `created_by` naming another subject gives an empty page. " +
    "Each session carries its `title` (its first input, cut); `metadata[<key>]=<value>` lists the sessions with those labels. " +
    "Each answer carries an `ETag`; poll with `If-None-Match` to get 304 with no body while the page is unchanged.",
  tags: ["Sessions"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { query: SessionListQuerySchema, headers: ConditionalHeadersSchema },
  responses: {
    ...conditionalResponses(SessionSummaryPageSchema, "A page of sessions."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit, cursor, status, created_by, agent_id, parent_session_id } = c.req.valid("query");
  const metadata = metadataFilterOf(c.req.queries());
  if (!metadata.ok) throw new ApiError("validation_failed", undefined, { errors: metadata.errors });
  const { tenantId } = c.var.principal;
  const filter = listFilterFor(c.var.principal, created_by);
  if (!filter.visible) return conditionalJson(c, { data: [], next_cursor: null });
  const page = await tenantIndexStub(c.env, tenantId).listSessions(tenantId, {
    limit,
    cursor: cursor ?? null,
    status: status ?? null,
    created_by: filter.createdBy,
    agent_id: agent_id ?? null,
    parent_session_id: parent_session_id ?? null,
    metadata: metadata.entries,
  });
  return conditionalJson(c, page);
};
