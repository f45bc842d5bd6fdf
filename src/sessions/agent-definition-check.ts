/**
 * A definition as it may be stored: the same checks as a session's create body (`prepareSession`,
 * against the tenant's models, limits and `webhook_origins` now), masked MCP header values
 * restored from the version it changes or refused. One 400 lists every problem at its field.
 */
import { ApiError, type FieldError } from "../problems";
import type { Actor } from "./actor";
import { prepareSession } from "./prepare";
import type { ToolSpec } from "../session-config/types";
import { type AgentDefinitionInput, configOf, normalizeDefinition, restoreMaskedHeaders } from "../agents/definition";
import type { AgentDefinition } from "../agents/types";

export function checkDefinition(actor: Actor, input: AgentDefinitionInput, previous: AgentDefinition | null): AgentDefinition {
  const restored = restoreMaskedHeaders(input.tools as ToolSpec[] | undefined, previous?.tools as ToolSpec[] | undefined);
  const definition = normalizeDefinition({
    ...input,
    ...(restored.tools ? { tools: restored.tools as AgentDefinitionInput["tools"] } : {}),
  });
  const errors: FieldError[] = [...restored.errors];
  try {
    prepareSession(actor, configOf(definition), "definition");
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== "validation_failed") throw error;
    errors.push(...(error.errors ?? []));
  }
  if (errors.length > 0) throw new ApiError("validation_failed", undefined, { errors });
  return definition;
}
