/**
 * `POST /v1/sessions`: creates a session; with `input` its first run starts at once. Limits
 * and tools are checked here, before the Agent exists, so a refused request leaves nothing.
 * `createSession` is the whole operation for any actor: the route and a schedule's firing.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { defaultModelFor, isModelAllowed, type ModelCatalog } from "../../sessions/object/model/catalog";
import type { ContextSettings, Session, SessionInit, ToolSpec } from "../../sessions/types";
import { tenantIndexStub } from "../../objects";
import type { Principal } from "../../auth/principal";
import type { Limits } from "../../limits";
import { type Actor, actorOf } from "../actor";
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
import { CREATE_SESSION_EXAMPLE, type CreateSessionRequest, CreateSessionRequestSchema, SessionSchema } from "./schemas";
import { checkNotifyUrl, prepareSessionTools } from "./tool-specs";
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

export type { CreateSessionRequest };

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
    notify_url: body.notify_url ?? null,
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
  const session = await createSession(actorOf(c), c.req.valid("json"));
  c.header("Location", sessionPath(session.id));
  return c.json(session, 201);
};

/** What a create body becomes once every check passed: the session's limits, model, tools and notify URL as stored. */
export interface PreparedSession {
  limits: Limits;
  model: string;
  tools: ToolSpec[];
  /** The session's own notification URL, normalized; null when it has none. */
  notify_url: string | null;
}

/**
 * Every check a create body must pass for this actor before anything exists: limits within the
 * tenant's, a model the platform and the tenant allow, tools and a notify URL the guards accept.
 * One 400 lists every problem, each at its field (`body.tools.0.url`).
 */
export async function prepareSession(actor: Actor, body: CreateSessionRequest): Promise<PreparedSession> {
  const { principal, config } = actor;
  const resolved = resolveSessionLimits(actor.limits, body.limits);
  const tenantModels = await tenantIndexStub(actor.env, principal.tenantId).allowedModels(principal.tenantId);
  const model = chooseModel(body.model, config.models, tenantModels, config.model);
  const urlOptions = { allowPrivateUrls: config.allowPrivateUrls, webhookOrigins: actor.settings.webhook_origins };
  const tools = prepareSessionTools(body.tools ?? [], urlOptions);
  const notifyUrl = body.notify_url == null ? null : checkNotifyUrl(body.notify_url, urlOptions);
  const errors = [
    ...tools.errors,
    ...(notifyUrl?.ok === false ? [notifyUrl.error] : []),
    ...(resolved.ok ? [] : resolved.errors),
    ...(model.ok ? [] : [model.error]),
    ...outputSchemaProblems(body.output_schema),
  ];
  if (errors.length > 0 || !resolved.ok || !model.ok) throw new ApiError("validation_failed", undefined, { errors });
  return { limits: resolved.limits, model: model.model, tools: tools.tools, notify_url: notifyUrl?.ok ? notifyUrl.url : null };
}

/**
 * Creates the session `id` (a fresh one by default) and, with `input`, starts its run once the
 * tenant's index admitted it. A caller that chooses the id gets a 409 when it is taken.
 */
export async function createSession(actor: Actor, body: CreateSessionRequest, id: string = newSessionId()): Promise<Session> {
  const { env, principal, config } = actor;
  const prepared = await prepareSession(actor, body);
  // Images last: a request that is wrong anyway fetches nothing.
  const input =
    body.input === undefined
      ? null
      : await resolveRunInput(body.input, {
          maxImageBytes: prepared.limits.max_image_bytes,
          model: prepared.model,
          catalog: config.models,
          allowPrivateUrls: config.allowPrivateUrls,
        });
  const init = buildSessionInit(id, principal, { ...body, tools: prepared.tools, notify_url: prepared.notify_url }, prepared.limits, prepared.model);
  const agent = new AgentClient(env, principal.tenantId, id);
  const create = () => agent.create(init, input);
  if (input === null) return create();
  await admitRun(env, principal.tenantId, id, actor.limits, Date.now());
  return startWithSlot(env, principal.tenantId, id, create);
}
