/**
 * Creating a session, for any actor: the route and a schedule's firing. Limits and tools are
 * checked before the session object exists, so a refused request leaves nothing; with `input` the first
 * run starts at once, once the tenant's index admitted it.
 */
import type { Principal } from "../auth/principal";
import type { Limits } from "../limits";
import { ApiError, type FieldError } from "../problems";
import type { Actor } from "./actor";
import { SessionClient } from "./client";
import { newSessionId } from "./ids";
import { resolveRunInput } from "./images";
import { resolveSessionLimits } from "./limits";
import { defaultModelFor, isModelAllowed, type ModelCatalog } from "./object/model/catalog";
import { outputSchemaProblems } from "./output-schema";
import type { CreateSessionRequest } from "./request-schemas";
import { admitRun, startWithSlot } from "./run-admission";
import { checkNotifyUrl, prepareSessionTools } from "./tool-specs";
import type { ContextSettings, Session, SessionInit, ToolSpec } from "./types";

/** Pure: what the session object is created with; `model` was chosen by `chooseModel`, every other absent field gets its documented default. */
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
 * One 400 lists every problem, each at its field (`body.tools.0.url`). No I/O: what the tenant
 * allows came with the actor's admission.
 */
export function prepareSession(actor: Actor, body: CreateSessionRequest): PreparedSession {
  const { config } = actor;
  const resolved = resolveSessionLimits(actor.limits, body.limits);
  const model = chooseModel(body.model, config.models, actor.models, config.model);
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
  const prepared = prepareSession(actor, body);
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
  const agent = new SessionClient(env, principal.tenantId, id);
  const create = () => agent.create(init, input);
  if (input === null) return create();
  await admitRun(env, principal.tenantId, id, actor.limits, Date.now());
  return startWithSlot(env, principal.tenantId, id, create);
}
