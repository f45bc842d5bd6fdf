/**
 * Schemas of the agent routes: the Agent and its versions, the alias body, and the path and
 * query parameters. The definition is src/agents/definition.ts: the session create body's fields.
 */
import { z } from "@hono/zod-openapi";
import { AgentDefinitionSchema, AgentPatchSchema } from "../../agents/definition";
import { AGENT_ID_PATTERN, AGENT_NAME_PATTERN, ALIAS_PATTERN, MAX_ALIAS_CHARS, MAX_AGENT_NAME_CHARS, MAX_VERSION } from "../../agents/refs";
import { decodeKeyCursor, decodeTimeIdCursor } from "../../shared/cursor";
import { pageQuerySchema, pageSchema, TimestampSchema } from "../schemas";
import { CanaryRequestSchema, CanaryStateSchema } from "./canary-schemas";

export { AgentDefinitionSchema, AgentPatchSchema };

const VersionNumberSchema = z.number().int().min(1).max(MAX_VERSION);

export const AgentSchema = z
  .object({
    id: z.string().openapi({ example: "agt_3kTq9vXbW2mYp7LsQa1Zc0Rd" }),
    name: z.string(),
    description: z.string().nullable(),
    version: VersionNumberSchema.openapi({ description: "The latest version; `agt_…` alone runs it." }),
    aliases: z
      .record(z.string(), VersionNumberSchema)
      .openapi({ description: "Each alias and the version it names.", example: { production: 3 } }),
    canaries: z.record(z.string(), CanaryStateSchema).openapi({
      description:
        "Each alias that carries a canary: the canary's version, its share of the alias's sessions, its rollback rule and its live counts.",
    }),
    definition: AgentDefinitionSchema.openapi({ description: "The latest version's definition; MCP header values masked." }),
    archived: z.boolean().openapi({ description: "An archived agent starts no new sessions; its sessions go on." }),
    created_by: z.string(),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .openapi("Agent");

export const AgentVersionSchema = z
  .object({
    agent_id: z.string(),
    version: VersionNumberSchema,
    definition: AgentDefinitionSchema.openapi({ description: "Immutable; a valid body of `POST /v1/agents` (MCP header values masked)." }),
    created_by: z.string(),
    created_at: TimestampSchema,
  })
  .openapi("AgentVersion");

export const AgentPageSchema = pageSchema(AgentSchema, "AgentPage");
export const AgentVersionPageSchema = pageSchema(AgentVersionSchema, "AgentVersionPage");

export const SetAliasRequestSchema = z
  .object({
    version: VersionNumberSchema.openapi({ example: 3 }),
    canary: CanaryRequestSchema.optional().openapi({
      description:
        "A second version taking `percent` of the alias's new sessions and chats; absent, the alias carries no canary (one it had goes).",
    }),
  })
  .strict()
  .openapi("SetAliasRequest");

// ---- parameters ----------------------------------------------------------------------------

/** Not checked against the pattern here: a malformed id is answered 404 like any unknown one. */
const AgentIdParam = z.string().openapi({
  param: { name: "agent_id", in: "path" },
  pattern: AGENT_ID_PATTERN.source,
  maxLength: 64,
  example: "agt_3kTq9vXbW2mYp7LsQa1Zc0Rd",
});

export const AgentIdParamsSchema = z.object({ agent_id: AgentIdParam });

export const VersionParamsSchema = z.object({
  agent_id: AgentIdParam,
  version: z
    .string()
    .regex(/^[1-9][0-9]{0,8}$/, "Must be a version number.")
    .openapi({ param: { name: "version", in: "path" }, maxLength: 9, example: "3" }),
});

export const AliasParamsSchema = z.object({
  agent_id: AgentIdParam,
  alias: z
    .string()
    .max(MAX_ALIAS_CHARS, { abort: true })
    .regex(ALIAS_PATTERN, `Must be 1-${MAX_ALIAS_CHARS} lowercase letters, digits, \`_\` or \`-\`, not all digits.`)
    .openapi({ param: { name: "alias", in: "path" }, example: "production" }),
});

export const AgentListQuerySchema = pageQuerySchema((cursor) => decodeTimeIdCursor("agents", cursor) !== null).extend({
  name: z
    .string()
    .max(MAX_AGENT_NAME_CHARS, { abort: true })
    .regex(AGENT_NAME_PATTERN, "Not an agent name.")
    .optional()
    .openapi({ param: { name: "name", in: "query" }, description: "Only agents of this name." }),
  include_archived: z
    .enum(["true", "false"])
    .optional()
    .openapi({ param: { name: "include_archived", in: "query" }, description: "`true` lists archived agents too." }),
});

export const VersionListQuerySchema = pageQuerySchema((cursor) => {
  const key = decodeKeyCursor("agent_versions", cursor);
  return key !== null && /^[0-9]{1,9}$/.test(key);
});

export const CREATE_AGENT_EXAMPLE: z.input<typeof AgentDefinitionSchema> = {
  name: "support-triage",
  description: "Answers order questions; hands refunds to a person.",
  system: "You are a support agent for Acme. Be brief.",
  tools: [{ type: "builtin", name: "get_time" }],
  limits: { max_steps_per_run: 10 },
};
