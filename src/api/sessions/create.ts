/**
 * `POST /v1/sessions`: creates a session; with `input` its first run starts at once. Limits
 * and tools are checked here, before the Agent exists, so a refused request leaves nothing.
 */
import { createRoute, type RouteHandler, type z } from "@hono/zod-openapi";
import { defaultModelFor, isModelAllowed, type ModelCatalog } from "../../agents/model/catalog";
import type { ContextSettings, Session, SessionInit } from "../../agents/types";
import { tenantIndexStub } from "../../objects";
import type { Principal } from "../../auth/principal";
import type { Limits } from "../../limits";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses, type FieldError } from "../errors";
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
import { prepareSessionTools } from "./tool-specs";
import { resolveRunInput } from "./images";
import { outputSchemaProblems } from "./output-schema";

export const route = createRoute({
  method: "post",
  path: "/v1/sessions",
  operationId: "createSession",
  summary: "Create a session",
  description:
    "With `input`, the first run starts at once (429 when the tenant's concurrent runs or daily tokens are used up). " +
    "`limits` may only lower the tenant's limits; `model` must be one the platform and the tenant allow. Images in `input` are " +
    "checked and stored before the session exists (400 for one too large, not an image, at a URL that cannot be fetched, or for a " +
    "model that does not take images). With `output_schema`, a run ends `done` with the parsed answer in `output`.",
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

/** Pure: what the Agent is created with; `model` was chosen by `chooseModel`, every other absent field gets its documented default. */
export function buildSessionInit(id: string, principal: Principal, body: CreateSessionRequest, limits: Limits, model: string): SessionInit {
  return {
    id,
    tenant_id: principal.tenantId,
    created_by: principal.subject,
    model,
    system: body.system ?? null,
    tools: body.tools ?? [],
    limits,
    context: contextSettings(body.context),
    output_schema: body.output_schema ?? null,
    metadata: body.metadata ?? null,
  };
}

/** The context settings as stored: the strategy always named; absent or null is `auto`. */
export function contextSettings(context: CreateSessionRequest["context"]): ContextSettings {
  if (!context) return { strategy: "auto" };
  return {
    strategy: context.strategy,
    ...(context.max_input_tokens !== undefined ? { max_input_tokens: context.max_input_tokens } : {}),
    ...(context.last_messages !== undefined ? { last_messages: context.last_messages } : {}),
  };
}

/**
 * Pure: the session's model, as asked (and echoed as given, prefix and all) when the platform's
 * `MODELS` and the tenant's list allow it; without one, the default the tenant allows.
 */
export function chooseModel(
  requested: string | undefined,
  catalog: ModelCatalog,
  tenantModels: readonly string[] | null,
  defaultModel: string,
): { ok: true; model: string } | { ok: false; error: FieldError } {
  if (requested === undefined) {
    const model = defaultModelFor(defaultModel, catalog, tenantModels);
    return model ? { ok: true, model } : { ok: false, error: { path: "body.model", message: "Required: this tenant has no default model; name one it allows." } };
  }
  if (isModelAllowed(catalog, tenantModels, requested)) return { ok: true, model: requested };
  return { ok: false, error: { path: "body.model", message: `The model "${requested}" is not available to this tenant.` } };
}

export function sessionPath(id: string): string {
  return `/v1/sessions/${id}`;
}

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const principal = c.var.principal;

  const resolved = resolveSessionLimits(c.var.limits, body.limits);
  const tenantModels = await tenantIndexStub(c.env, principal.tenantId).allowedModels(principal.tenantId);
  const model = chooseModel(body.model, c.var.config.models, tenantModels, c.var.config.model);
  const tools = prepareSessionTools(body.tools ?? [], {
    allowPrivateUrls: c.var.config.allowPrivateUrls,
    webhookOrigins: c.var.settings.webhook_origins,
  });
  const errors = [...tools.errors, ...(resolved.ok ? [] : resolved.errors), ...(model.ok ? [] : [model.error]), ...outputSchemaProblems(body.output_schema)];
  if (errors.length > 0 || !resolved.ok || !model.ok) throw new ApiError("validation_failed", undefined, { errors });
  // Images last: a request that is wrong anyway fetches nothing.
  const input =
    body.input === undefined
      ? null
      : await resolveRunInput(body.input, {
          maxImageBytes: resolved.limits.max_image_bytes,
          model: model.model,
          catalog: c.var.config.models,
          allowPrivateUrls: c.var.config.allowPrivateUrls,
        });

  const id = newSessionId();
  const init = buildSessionInit(id, principal, { ...body, tools: tools.tools }, resolved.limits, model.model);
  const agent = new AgentClient(c.env, principal.tenantId, id);
  const create = () => agent.create(init, input);
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
