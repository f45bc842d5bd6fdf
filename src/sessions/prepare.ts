/**
 * Every check a session's configuration must pass for its actor, with no I/O: limits within the
 * ceiling (the tenant's, or an agent's), a model the platform and the tenant allow, tools and a
 * notify URL the guards accept, an output schema the validator can run.
 */
import { hasScope, type Scope } from "../auth/principal";
import { ApiError, type FieldError } from "../problems";
import type { Limits } from "../limits";
import type { Actor } from "./actor";
import { resolveSessionLimits } from "./limits";
import { acceptsReasoning, defaultModelFor, isModelAllowed, type ModelCatalog, parseModel, providerToolsFor } from "../models/catalog";
import { outputSchemaProblems } from "./output-schema";
import type { CreateSessionRequest } from "../session-config/request-schemas";
import { checkNotifyUrl, prepareSessionTools } from "./tool-specs";
import type { ProviderToolSpec, ReasoningSettings, ToolSpec } from "../session-config/types";
import { type MemoryGrant, resolveGrant } from "../session-config/memory-namespace";
import { MEMORY_TOOL_NAMES } from "./object/tools/builtin/memory";

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
    return model
      ? { ok: true, model }
      : { ok: false, error: { path: "body.model", message: "Required: this tenant has no default model; name one it allows." } };
  }
  if (isModelAllowed(catalog, tenantModels, requested)) return { ok: true, model: requested };
  return { ok: false, error: { path: "body.model", message: `The model "${requested}" is not available to this tenant.` } };
}

/**
 * Pure: why `reasoning` does not fit the session's model and limits. The catalog says which models
 * take it; a budget is Anthropic's alone, and is part of the answer's cap, so it must be below it.
 */
export function reasoningProblems(
  reasoning: ReasoningSettings | null | undefined,
  model: string,
  catalog: ModelCatalog,
  maxTokensPerCall: number,
): FieldError[] {
  if (!reasoning) return [];
  if (!acceptsReasoning(catalog, model)) {
    return [
      {
        path: "body.reasoning",
        message: `The model "${model}" is not a reasoning model in the platform's catalog: it takes no reasoning settings.`,
      },
    ];
  }
  const budget = reasoning.budget_tokens;
  if (budget === undefined) return [];
  if (parseModel(model).provider !== "anthropic")
    return [{ path: "body.reasoning.budget_tokens", message: "Only Anthropic models take a budget; give `effort`." }];
  if (budget >= maxTokensPerCall)
    return [
      {
        path: "body.reasoning.budget_tokens",
        message: `Must be below max_tokens_per_call (${maxTokensPerCall}), which counts thinking and answer together.`,
      },
    ];
  return [];
}

/** The options each provider tool takes (Anthropic's for `web_search_20250305`, `web_fetch_20250910`, `code_execution_20250825`). */
const PROVIDER_TOOL_OPTIONS: Record<ProviderToolSpec["name"], readonly string[]> = {
  web_search: ["max_uses", "allowed_domains", "blocked_domains", "user_location"],
  web_fetch: ["max_uses", "allowed_domains", "blocked_domains", "citations", "max_content_tokens"],
  code_execution: [],
};

/**
 * Pure: the provider tools the session's model does not have, each at its place in `tools`, as
 * the catalog says; and domain lists the provider takes one at a time.
 */
export function providerToolProblems(tools: readonly ToolSpec[], model: string, catalog: ModelCatalog): FieldError[] {
  const has = providerToolsFor(catalog, model);
  return tools.flatMap((tool, i): FieldError[] => {
    if (tool.type !== "provider") return [];
    if (!has.includes(tool.name)) {
      const offered = has.length > 0 ? `; it has ${has.join(", ")}` : "; it has no provider tools";
      return [
        {
          path: `body.tools.${i}.name`,
          message: `The model "${model}" has no provider tool "${tool.name}" in the platform's catalog${offered}.`,
        },
      ];
    }
    const foreign = Object.keys(tool).find((key) => key !== "type" && key !== "name" && !PROVIDER_TOOL_OPTIONS[tool.name].includes(key));
    if (foreign) return [{ path: `body.tools.${i}.${foreign}`, message: `The provider tool "${tool.name}" takes no ${foreign}.` }];
    if (tool.allowed_domains && tool.blocked_domains)
      return [{ path: `body.tools.${i}.blocked_domains`, message: "Give allowed_domains or blocked_domains, not both." }];
    return [];
  });
}

/** What a create body becomes once every check passed: the session's limits, model, tools and notify URL as stored. */
export interface PreparedSession {
  limits: Limits;
  model: string;
  tools: ToolSpec[];
  /** The session's own notification URL, normalized; null when it has none. */
  notify_url: string | null;
  /** The memory the session's model may use, its templates filled (kept, for an agent's definition); null for none. */
  memory: MemoryGrant | null;
}

/**
 * Whose configuration is checked. `session`: a create body, under the tenant's limits. `agent-session`:
 * an agent's definition with the caller's fields, under the agent's limits; its memory grant was
 * the agent author's to give. `definition`: an agent's definition as stored, whose memory templates
 * wait for each session's metadata.
 */
export type PrepareSource = "session" | "agent-session" | "definition";

/**
 * Every check a create body must pass for this actor before anything exists: limits within the
 * tenant's, a model the platform and the tenant allow, tools and a notify URL the guards accept.
 * One 400 lists every problem, each at its field (`body.tools.0.url`). No I/O: what the tenant
 * allows came with the actor's admission.
 */
export function prepareSession(actor: Actor, body: CreateSessionRequest, source: PrepareSource = "session"): PreparedSession {
  const { config } = actor;
  if (body.memory != null && source !== "agent-session") requireMemoryScopes(actor, body.memory);
  const resolved = resolveSessionLimits(actor.limits, body.limits, source === "agent-session" ? "agent's" : "tenant's");
  const model = chooseModel(body.model, config.models, actor.models, config.model);
  const urlOptions = { allowPrivateUrls: config.allowPrivateUrls, webhookOrigins: actor.settings.webhook_origins };
  const tools = prepareSessionTools(body.tools ?? [], urlOptions);
  const notifyUrl = body.notify_url == null ? null : checkNotifyUrl(body.notify_url, urlOptions);
  const memory = body.memory == null ? null : resolveGrant(body.memory, source === "definition" ? "keep" : (body.metadata ?? null));
  const errors = [
    ...tools.errors,
    ...(memory?.ok === false ? memory.errors : []),
    ...(memory ? memoryToolClashes(body.tools ?? []) : []),
    ...(notifyUrl?.ok === false ? [notifyUrl.error] : []),
    ...(resolved.ok ? [] : resolved.errors),
    ...(model.ok ? [] : [model.error]),
    ...outputSchemaProblems(body.output_schema),
    ...(model.ok ? providerToolProblems(body.tools ?? [], model.model, config.models) : []),
    ...(model.ok && resolved.ok ? reasoningProblems(body.reasoning, model.model, config.models, resolved.limits.max_tokens_per_call) : []),
  ];
  if (errors.length > 0 || !resolved.ok || !model.ok) throw new ApiError("validation_failed", undefined, { errors });
  return {
    limits: resolved.limits,
    model: model.model,
    tools: tools.tools,
    notify_url: notifyUrl?.ok ? notifyUrl.url : null,
    memory: memory?.ok ? memory.grant : null,
  };
}

/**
 * A memory grant lets a model read (and write) what the grant names: whoever gives one must hold
 * that access. A session from an agent is exempt: its grant is the agent author's, checked when
 * the definition was stored (but a caller who fills its templates chooses whose memory it is, so
 * `planSession` asks the same of that caller).
 */
export function requireMemoryScopes(actor: Actor, grant: { write?: string[][] }): void {
  const needed: Scope[] = (grant.write?.length ?? 0) > 0 ? ["memory:read", "memory:write"] : ["memory:read"];
  const missing = needed.filter((scope) => !hasScope(actor.principal, scope));
  if (missing.length > 0)
    throw new ApiError("forbidden", `A memory grant requires the ${missing.join(" and ")} scope${missing.length > 1 ? "s" : ""}.`);
}

/** With a memory grant the memory tools are offered: no declared tool may take one of their names. */
function memoryToolClashes(tools: readonly { name: string }[]): FieldError[] {
  return tools.flatMap((tool, i) =>
    MEMORY_TOOL_NAMES.includes(tool.name)
      ? [{ path: `body.tools.${i}.name`, message: `"${tool.name}" is the name of a memory tool, which \`memory\` offers.` }]
      : [],
  );
}
