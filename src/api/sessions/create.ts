/**
 * `POST /v1/sessions`: creates a session; with `input` its first run starts at once. Limits
 * and tools are checked here, before the Agent exists, so a refused request leaves nothing.
 */
import { createRoute, type RouteHandler, type z } from "@hono/zod-openapi";
import type { Session, SessionInit } from "../../agents/types";
import type { Principal } from "../../auth/principal";
import type { Limits } from "../../limits";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { IdempotencyHeadersSchema, idempotent } from "../middleware/idempotency";
import { requireScope } from "../middleware/require-scope";
import { headerRefs } from "../openapi-headers";
import { jsonBody } from "../schemas";
import { bearerAuth } from "../security";
import { AgentClient } from "./agent-client";
import { newSessionId } from "./ids";
import { resolveSessionLimits } from "./limits";
import { admitRun, startWithSlot } from "./run-admission";
import { CREATE_SESSION_EXAMPLE, CreateSessionRequestSchema, SessionSchema } from "./schemas";
import { checkNotifyUrl, prepareSessionTools } from "./tool-specs";

export const route = createRoute({
  method: "post",
  path: "/v1/sessions",
  operationId: "createSession",
  summary: "Create a session",
  description:
    "With `input`, the first run starts at once (429 when the tenant's concurrent runs or daily tokens are used up). " +
    "`limits` may only lower the tenant's limits.",
  tags: ["Sessions"],
  security: bearerAuth("sessions:write"),
  middleware: [requireScope("sessions:write"), idempotent()] as const,
  request: { headers: IdempotencyHeadersSchema, body: jsonBody(CreateSessionRequestSchema, CREATE_SESSION_EXAMPLE) },
  responses: {
    201: {
      description: "The new session.",
      headers: headerRefs("Location"),
      content: { "application/json": { schema: SessionSchema } },
    },
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 409, 422),
  },
});

type CreateSessionRequest = z.infer<typeof CreateSessionRequestSchema>;

/** Pure: what the Agent is created with; every absent field gets its documented default. */
export function buildSessionInit(id: string, principal: Principal, body: CreateSessionRequest, limits: Limits, defaultModel: string): SessionInit {
  return {
    id,
    tenant_id: principal.tenantId,
    created_by: principal.subject,
    model: body.model ?? defaultModel,
    system: body.system ?? null,
    tools: body.tools ?? [],
    limits,
    context: body.context ?? null,
    metadata: body.metadata ?? null,
    notify_url: body.notify_url ?? null,
  };
}

export function sessionPath(id: string): string {
  return `/v1/sessions/${id}`;
}

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const principal = c.var.principal;

  const resolved = resolveSessionLimits(c.var.limits, body.limits);
  const urlOptions = { allowPrivateUrls: c.var.config.allowPrivateUrls, webhookOrigins: c.var.settings.webhook_origins };
  const tools = prepareSessionTools(body.tools ?? [], urlOptions);
  const notifyUrl = body.notify_url == null ? null : checkNotifyUrl(body.notify_url, urlOptions);
  const errors = [...tools.errors, ...(notifyUrl?.ok === false ? [notifyUrl.error] : []), ...(resolved.ok ? [] : resolved.errors)];
  if (errors.length > 0 || !resolved.ok) throw new ApiError("validation_failed", undefined, { errors });

  const id = newSessionId();
  const init = buildSessionInit(id, principal, { ...body, tools: tools.tools, notify_url: notifyUrl?.ok ? notifyUrl.url : null }, resolved.limits, c.var.config.model);
  const agent = new AgentClient(c.env, principal.tenantId, id);
  const create = () => agent.create(init, body.input ?? null);
  let session: Session;
  if (body.input === undefined) {
    session = await create();
  } else {
    await admitRun(c.env, principal.tenantId, id, c.var.limits, Date.now());
    session = await startWithSlot(c.env, principal.tenantId, id, create);
  }

  c.header("Location", sessionPath(id));
  return c.json(session, 201);
};
