/**
 * An agent's definition: a name, a description, and a session's configuration fields with the
 * very schemas of the session create body (`SESSION_CONFIG_FIELDS`), so one schema and one
 * `prepareSession` validate both. A stored definition drops null fields, so it is a valid
 * `POST /v1/agents` body as it stands: the export format.
 */
import { z } from "@hono/zod-openapi";
import { MASKED_VALUE } from "../shared/secret-mask";
import type { FieldError } from "../problems";
import { SESSION_CONFIG_FIELDS, type CreateSessionRequest } from "../session-config/request-schemas";
import type { ToolSpec } from "../session-config/types";
import { AGENT_NAME_PATTERN, MAX_AGENT_NAME_CHARS } from "./refs";
import type { AgentDefinition } from "./types";

export const MAX_AGENT_DESCRIPTION_CHARS = 2_000;

const AgentNameSchema = z
  .string()
  .max(MAX_AGENT_NAME_CHARS, { abort: true })
  .regex(AGENT_NAME_PATTERN, `Must be 1-${MAX_AGENT_NAME_CHARS} letters, digits, \`_\` or \`-\`.`)
  .openapi({ description: "Unique among the tenant's live agents.", example: "support-triage" });

const DEFINITION_FIELDS = {
  name: AgentNameSchema,
  description: z
    .string()
    .max(MAX_AGENT_DESCRIPTION_CHARS)
    .nullable()
    .optional()
    .openapi({ description: "For people: what the agent is for." }),
  ...SESSION_CONFIG_FIELDS,
};

export const AgentDefinitionSchema = z
  .object(DEFINITION_FIELDS)
  .strict()
  .openapi("AgentDefinition", {
    description:
      "A session's configuration under a name. Every field but `name` and `description` is the session create body's field of the same " +
      "name, checked the same way against the tenant's models, limits and `webhook_origins`. A version's `definition` is a valid body " +
      "of `POST /v1/agents` as it stands (MCP header values come back masked and must be given again).",
  });

/** A PATCH: any definition field; null clears a nullable one; absent keeps it. */
export const AgentPatchSchema = z
  .object({ ...DEFINITION_FIELDS, name: AgentNameSchema.optional() })
  .strict()
  .openapi("AgentPatch", { description: "Any fields of the definition; the result is a new version unless nothing changed." });

export type AgentDefinitionInput = z.infer<typeof AgentDefinitionSchema>;
export type AgentPatch = z.infer<typeof AgentPatchSchema>;

/** The definition as stored and shown: absent and null fields left out. */
export function normalizeDefinition(input: AgentDefinitionInput): AgentDefinition {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) if (value !== null && value !== undefined) out[key] = value;
  return out as AgentDefinition;
}

/** The latest definition with a PATCH applied: each given field replaces the old one; null clears it. */
export function applyPatch(latest: AgentDefinition, patch: AgentPatch): AgentDefinitionInput {
  return { ...(latest as AgentDefinitionInput), ...patch } as AgentDefinitionInput;
}

/** The session configuration a definition holds, in the create body's shape. */
export function configOf(definition: AgentDefinition): CreateSessionRequest {
  const { name: _name, description: _description, ...config } = definition;
  return config as CreateSessionRequest;
}

/**
 * Responses show MCP header values masked; a definition sent back as it was read carries the
 * mask. On a new version, a masked value of a server the latest version has (same name, same
 * URL, same header) keeps that stored value; anywhere else the mask is refused, so it is never
 * stored as a credential and a stored credential never goes to a URL its author did not send it to.
 */
/** The same server: equal URLs once parsed (so case in the host or a default port does not count as a change). */
function sameServerUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
}

export function restoreMaskedHeaders(
  tools: readonly ToolSpec[] | undefined,
  previous: readonly ToolSpec[] | undefined,
): { tools: ToolSpec[] | undefined; errors: FieldError[] } {
  if (!tools) return { tools, errors: [] };
  const errors: FieldError[] = [];
  const restored = tools.map((tool, i) => {
    if (tool.type !== "mcp" || !tool.headers) return tool;
    const before = previous?.find((old) => old.type === "mcp" && old.name === tool.name);
    const sameUrl = before?.type === "mcp" && sameServerUrl(before.url, tool.url);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(tool.headers)) {
      // Own values only: a name such as `toString` would otherwise find the prototype's function.
      const stored = before?.type === "mcp" && before.headers && Object.hasOwn(before.headers, name) ? before.headers[name] : undefined;
      const kept = sameUrl ? stored : undefined;
      if (value !== MASKED_VALUE) headers[name] = value;
      else if (kept !== undefined) headers[name] = kept;
      else if (!sameUrl && stored !== undefined) {
        errors.push({
          path: `body.tools.${i}.headers.${name}`,
          message: "Give the header's value again: the server's URL changed, and a stored value only goes to the URL it was given for.",
        });
      } else
        errors.push({
          path: `body.tools.${i}.headers.${name}`,
          message: `Give the header's value: ${MASKED_VALUE} is how answers mask it.`,
        });
    }
    return { ...tool, headers };
  });
  return { tools: restored, errors };
}
