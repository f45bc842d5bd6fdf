/** The wire shapes of the tenant's tool policy: the policy, its check, and a decision. */
import { z } from "@hono/zod-openapi";
import { PRINCIPAL_KINDS, TOOL_TRUSTS } from "../../../policy/schema";
import { CedarTextSchema } from "../../../session-config/policy-spec";
import { MetadataSchema } from "../../../session-config/request-schemas";
import { MAX_TOOL_NAME_CHARS, TOOL_NAME_PATTERN } from "../../../session-config/tool-name";
import { TimestampSchema } from "../../schemas";

export const PolicyBodySchema = z.object({ cedar: CedarTextSchema }).strict().openapi("PolicyBody");

export const TenantPolicySchema = z
  .object({
    cedar: z.string(),
    version: z.number().int().openapi({ description: "Grows by one with each change, a removal included." }),
    updated_at: TimestampSchema,
  })
  .openapi("TenantPolicy");

export const PolicySchemaDocumentSchema = z
  .object({ cedar_schema: z.string().openapi({ description: "The schema in Cedar's schema syntax." }) })
  .openapi("PolicySchemaDocument");

export const PolicyCheckRequestSchema = z
  .object({
    principal: z.string().min(1).max(512).openapi({
      description: "The `created_by` of a session: a JWT's subject, `key:<key id>` or `end_user:<subject>`.",
      example: "end_user:alice",
    }),
    principal_kind: z
      .enum(PRINCIPAL_KINDS)
      .optional()
      .openapi({ description: "Overrides the kind read from `principal` (`platform` is never read from it)." }),
    key_id: z.string().max(128).optional(),
    tool: z
      .object({
        name: z.string().regex(TOOL_NAME_PATTERN).max(MAX_TOOL_NAME_CHARS),
        type: z.enum(["builtin", "webhook", "client", "mcp", "agent", "a2a"]),
        trust: z.enum(TOOL_TRUSTS).optional().openapi({ description: "The tool type's default when absent (see docs/policy.md)." }),
      })
      .strict(),
    input: z.unknown().optional().openapi({ description: "The call's input; each top-level field is a tag of `context.input`." }),
    tainted: z.boolean().default(false),
    agent: z
      .object({ id: z.string().min(1).max(128), version: z.number().int().min(1).max(1_000_000) })
      .strict()
      .optional(),
    session_metadata: MetadataSchema.optional(),
    cedar: CedarTextSchema.optional().openapi({ description: "A draft to judge by in place of the stored tenant policy." }),
    agent_cedar: CedarTextSchema.optional().openapi({ description: "An agent version's policy, judged beside the tenant's." }),
  })
  .strict()
  .openapi("PolicyCheckRequest");

export const PolicyDecisionSchema = z
  .object({
    decision: z.enum(["allow", "deny", "require_approval"]),
    policy_ids: z
      .array(z.string())
      .openapi({ description: "The statements that decided, `tenant.<id>` or `agent.<id>` (`@id` or `policy<n>`)." }),
    errors: z.array(z.string()).openapi({ description: "Evaluation errors; a forbid that errs denies." }),
  })
  .openapi("PolicyDecision");
