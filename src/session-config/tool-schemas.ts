/** The tool declarations of a session's create body (and an agent's definition): one schema per tool type, and the credential headers they carry. */
import { z } from "@hono/zod-openapi";
import { FRAMING_HEADERS } from "../egress/framing-headers";
import { CREDENTIAL_NAME_PATTERN } from "../egress/credentials";
import { boundedRecord } from "../shared/bounded-record";
import { isPrototypeName, refuseProtoKey } from "../shared/prototype-keys";
import { jsonDepth, MAX_JSON_DEPTH } from "../shared/json-depth";
import { MAX_PATTERN_SUBJECT_CHARS } from "../shared/json-schema/patterns";
import { MAX_MCP_SERVER_NAME_CHARS, MCP_SERVER_NAME_PATTERN } from "./mcp-naming";
import { MAX_APPROVAL_TIMEOUT_SECONDS, MAX_RUN_TOOLS } from "./bounds";
import { MAX_TOOL_NAME_CHARS, TOOL_NAME_PATTERN } from "./tool-name";
import { AGENT_REF_PATTERN, MAX_AGENT_REF_CHARS } from "./agent-ref";
import { ProviderToolSchema } from "./provider-tool-schema";

export const MAX_TOOL_DESCRIPTION_CHARS = 4_000;
/** A tool's JSON Schema, serialized; a larger one is a prompt, not a schema. */
export const MAX_INPUT_SCHEMA_CHARS = 32 * 1024;
export const MAX_WEBHOOK_URL_CHARS = 2_048;

/** MCP tool names are at most 128 characters (the protocol's recommendation). */
export const MAX_MCP_TOOL_NAME_CHARS = 128;
export const MAX_MCP_HEADERS = 20;
export const MAX_MCP_HEADER_VALUE_CHARS = 4_096;
const MAX_MCP_HEADER_NAME_CHARS = 100;
/** An HTTP token (RFC 9110). */
export const MCP_HEADER_NAME_PATTERN = new RegExp(`^[!#$%&'*+.^_\`|~0-9A-Za-z-]{1,${MAX_MCP_HEADER_NAME_CHARS}}$`);
/** Visible characters, spaces and tabs: no line break can split one header into two. */
export const MCP_HEADER_VALUE_PATTERN = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Headers the transport or the platform sets: a tenant's value would break the protocol or the request's framing. */
const FORBIDDEN_MCP_HEADERS: ReadonlySet<string> = new Set([
  ...FRAMING_HEADERS,
  "content-type",
  "accept",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
]);

/**
 * Credential headers a tenant gives for the platform to send (an MCP server's, a trace
 * collector's): HTTP tokens for names, printable values, never one of `forbidden` (set by the
 * platform). Every response shows the values masked.
 */
export function credentialHeadersSchema(forbidden: ReadonlySet<string>) {
  // Prototype names are refused, not dropped: a look-up of the name on a plain object finds its prototype's member.
  return z.preprocess(
    refuseProtoKey,
    boundedRecord(
      z
        .string()
        .max(MAX_MCP_HEADER_NAME_CHARS, { abort: true })
        .regex(MCP_HEADER_NAME_PATTERN, "Not an HTTP header name.")
        .refine((name) => !forbidden.has(name.toLowerCase()), "This header is set by the platform.")
        .refine((name) => !isPrototypeName(name), "A name of JavaScript's Object.prototype (`toString`, `constructor`, …) is not taken."),
      z.string().max(MAX_MCP_HEADER_VALUE_CHARS).regex(MCP_HEADER_VALUE_PATTERN, "Must be printable, without line breaks."),
      MAX_MCP_HEADERS,
      `At most ${MAX_MCP_HEADERS} headers.`,
    ),
  );
}

// ---- tools ---------------------------------------------------------------------------------

/** A vault credential a tool sends; it need not exist yet (the user may connect it later). */
const ToolAuthSchema = z
  .object({
    credential: z
      .string()
      .regex(CREDENTIAL_NAME_PATTERN, "Must be 1-64 lower-case letters, digits, `_` or `-`.")
      .openapi({ maxLength: 64, example: "github" }),
  })
  .strict()
  .openapi("ToolAuth", {
    description:
      "A credential of the vault, by name: at each call it is looked up for the session's end user (`created_by` `end_user:<subject>`), " +
      "else the tenant's, and its header is added to a request only when the request's origin is in its `allowed_origins` (a redirect " +
      "to another origin never carries it). A name, not a secret: shown as given. A credential absent when the session is created is " +
      "allowed; a call made while it is absent or unusable fails with `credential_missing` (or `credential_refresh_failed`) and the " +
      "session emits `credential_required`.",
  });

const ToolNameSchema = z
  .string()
  .regex(TOOL_NAME_PATTERN, `Must be 1-${MAX_TOOL_NAME_CHARS} letters, digits, \`_\` or \`-\`.`)
  // The pattern bounds the length; stated for clients, not checked twice.
  .openapi({ maxLength: MAX_TOOL_NAME_CHARS, example: "lookup_order" });

/**
 * The length cap of a JSON Schema a caller gives, for the document: JSON Schema has no keyword
 * for a value's serialized size, so it is stated as an extension (and in the description).
 */
const SCHEMA_SIZE = { "x-max-json-chars": MAX_INPUT_SCHEMA_CHARS } as const;

const InputSchemaSchema = z
  .record(z.string(), z.unknown())
  .refine((schema) => schema.type === "object", 'Must be a JSON Schema with "type": "object" at the top.')
  .refine(
    (schema) => JSON.stringify(schema).length <= MAX_INPUT_SCHEMA_CHARS,
    `Must be at most ${MAX_INPUT_SCHEMA_CHARS} characters as JSON.`,
  )
  .refine((schema) => jsonDepth(schema) <= MAX_JSON_DEPTH, `Must be nested at most ${MAX_JSON_DEPTH} levels deep.`)
  .openapi({
    ...SCHEMA_SIZE,
    description:
      `A JSON Schema (2020-12) for the tool's input; its top level is an object, at most ${MAX_INPUT_SCHEMA_CHARS} characters as JSON ` +
      `and nested at most ${MAX_JSON_DEPTH} levels deep. \`pattern\` and \`patternProperties\` ` +
      "use the RE2 subset of ECMA-262 regular expressions (no backreferences or lookaround), run in linear time; " +
      `strings longer than ${MAX_PATTERN_SUBJECT_CHARS} characters never match a pattern or a format.`,
    example: { type: "object", properties: {} },
  });

/** A run's `output_schema`: the same bounds as a tool's input schema, since the Anthropic provider sends it as one. */
export const OutputSchemaSchema = z
  .record(z.string(), z.unknown())
  .refine((schema) => schema.type === "object", 'Must be a JSON Schema with "type": "object" at the top.')
  .refine(
    (schema) => JSON.stringify(schema).length <= MAX_INPUT_SCHEMA_CHARS,
    `Must be at most ${MAX_INPUT_SCHEMA_CHARS} characters as JSON.`,
  )
  .refine((schema) => jsonDepth(schema) <= MAX_JSON_DEPTH, `Must be nested at most ${MAX_JSON_DEPTH} levels deep.`)
  .openapi("OutputSchema", {
    ...SCHEMA_SIZE,
    description:
      `A JSON Schema (2020-12) the run's final answer must be valid for; its top level is an object, at most ${MAX_INPUT_SCHEMA_CHARS} characters ` +
      `as JSON and nested at most ${MAX_JSON_DEPTH} levels deep. The answer is checked with the ` +
      "same validator as tool inputs (patterns on RE2); an invalid answer is told to the model, which answers again, and a run without a " +
      "valid answer after 3 tries (or at the step limit) fails with `invalid_output`.",
    example: {
      type: "object",
      properties: { total: { type: "number" }, currency: { type: "string", enum: ["EUR", "USD"] } },
      required: ["total", "currency"],
    },
  });

const ToolDescriptionSchema = z.string().min(1).max(MAX_TOOL_DESCRIPTION_CHARS);
const RequiresApprovalSchema = z.boolean().optional().openapi({ description: "Each call waits for an approve or deny first." });
/** Shared by every tool type that can require approval. */
export const ApprovalTimeoutSchema = z
  .number()
  .int()
  .min(1)
  .max(MAX_APPROVAL_TIMEOUT_SECONDS)
  .optional()
  .openapi({
    description:
      "Only with `requires_approval`: a call not approved or denied within this many seconds of its creation is denied with the reason " +
      '"approval expired" (`decision: "expired"`, `decided_by: "system"`), and the run goes on as after any deny.',
    example: 3600,
  });

export const BuiltinToolSchema = z
  .object({
    type: z.literal("builtin"),
    name: ToolNameSchema.openapi({ description: "A built-in tool: `get_time`, `http_fetch` or `run_code`.", example: "get_time" }),
    requires_approval: RequiresApprovalSchema,
    approval_timeout_seconds: ApprovalTimeoutSchema,
  })
  .strict()
  .openapi("BuiltinTool");

export const WebhookToolSchema = z
  .object({
    type: z.literal("webhook"),
    name: ToolNameSchema,
    description: ToolDescriptionSchema,
    input_schema: InputSchemaSchema,
    url: z
      .string()
      .max(MAX_WEBHOOK_URL_CHARS)
      .openapi({ format: "uri", description: "An https URL on the public internet.", example: "https://example.com/tools/lookup" }),
    auth: ToolAuthSchema.optional(),
    requires_approval: RequiresApprovalSchema,
    approval_timeout_seconds: ApprovalTimeoutSchema,
    at_most_once: z.boolean().optional().openapi({ description: "Never retried, even after a timeout or a 5xx." }),
    trust: z
      .enum(["trusted", "untrusted"])
      .optional()
      .openapi({
        description:
          "Whether its answers are the tenant's own (`trusted`, the default) or content from outside: after an `untrusted` tool's result the run is " +
          "tainted until it ends, which tool policies read as `context.tainted` (docs/policy.md).",
      }),
  })
  .strict()
  .openapi("WebhookTool");

export const ClientToolSchema = z
  .object({
    type: z.literal("client"),
    name: ToolNameSchema,
    description: ToolDescriptionSchema,
    input_schema: InputSchemaSchema,
    requires_approval: RequiresApprovalSchema,
    approval_timeout_seconds: ApprovalTimeoutSchema,
  })
  .strict()
  .openapi("ClientTool");

export const McpToolSchema = z
  .object({
    type: z.literal("mcp"),
    name: z
      .string()
      .max(MAX_MCP_SERVER_NAME_CHARS)
      .regex(MCP_SERVER_NAME_PATTERN, `Must be 1-${MAX_MCP_SERVER_NAME_CHARS} letters, digits or \`-\`, with single \`_\` between them.`)
      .openapi({ description: "The server's name; its tools are offered to the model as `<name>__<tool>`.", example: "docs" }),
    url: z.string().max(MAX_WEBHOOK_URL_CHARS).openapi({
      format: "uri",
      description: "The server's Streamable HTTP endpoint: https, on the public internet.",
      example: "https://mcp.example.com/mcp",
    }),
    allowed_tools: z
      .array(z.string().min(1).max(MAX_MCP_TOOL_NAME_CHARS))
      .max(MAX_RUN_TOOLS)
      .optional()
      .openapi({ description: "Only these of the server's tools are offered (its own names); all of them when absent." }),
    headers: credentialHeadersSchema(FORBIDDEN_MCP_HEADERS)
      .optional()
      .openapi({
        description:
          "Sent with every request to the server, e.g. `Authorization`. Write-only: every response shows each value as `********`.",
        example: { Authorization: "Bearer <token>" },
      }),
    auth: ToolAuthSchema.optional(),
    requires_approval: RequiresApprovalSchema.openapi({
      description: "Each call of any of the server's tools waits for an approve or deny first.",
    }),
    approval_timeout_seconds: ApprovalTimeoutSchema,
  })
  .strict()
  .openapi("McpTool");

export const AgentToolSchema = z
  .object({
    type: z.literal("agent"),
    name: ToolNameSchema,
    description: ToolDescriptionSchema,
    agent: z
      .string()
      .max(MAX_AGENT_REF_CHARS)
      .regex(AGENT_REF_PATTERN, "Must be an agent id, optionally followed by @<version> or @<alias>.")
      .openapi({
        description:
          "The agent each call hands its input to: `agt_…` (its latest version), `agt_…@<version>` or `agt_…@<alias>`, resolved when the call is made. " +
          "It must name a live agent of the tenant when the session is created.",
        example: "agt_0123456789abcdefghijklmn@production",
      }),
    requires_approval: RequiresApprovalSchema,
    approval_timeout_seconds: ApprovalTimeoutSchema,
  })
  .strict()
  .openapi("AgentTool", {
    description:
      'A sub-agent. The model calls it with `{ "input": string }`; each call starts a child session of the agent (same tenant and `created_by`, ' +
      "`parent` naming this session and the call) and the session waits (`waiting_subagents`, holding no run slot) until the child ends. " +
      "The child's `output` (as JSON text) when it has an output schema, else its final text, is the call's result; a failed or cancelled child gives an error result.",
  });

export const A2aToolSchema = z
  .object({
    type: z.literal("a2a"),
    name: ToolNameSchema,
    description: ToolDescriptionSchema,
    agent_card_url: z.string().max(MAX_WEBHOOK_URL_CHARS).openapi({
      format: "uri",
      description: "The remote agent's card (an https URL on the public internet); its JSON-RPC endpoint is read from it at each call.",
      example: "https://agents.example.com/.well-known/agent-card.json",
    }),
    auth: ToolAuthSchema.optional(),
    requires_approval: RequiresApprovalSchema,
    approval_timeout_seconds: ApprovalTimeoutSchema,
    idempotent: z.boolean().optional().openapi({
      description: "A message may be sent again after a timeout, a 5xx or a restart; without it, each message is sent at most once.",
    }),
  })
  .strict()
  .openapi("A2aTool", {
    description:
      'A remote agent over the Agent2Agent protocol. The model calls it with `{ "message": string }`; each call sends `message/send` (JSON-RPC) ' +
      "to the endpoint the agent card names. A completed task's text and data artifacts are the result; a failed, rejected or cancelled task " +
      "gives an error result; a task that ends `input-required` makes the call wait (`waiting_tool_output`, the remote's question as its " +
      "`output`), and the output posted for it is sent to the remote task as the next message.",
  });

export const ToolSchema = z
  .discriminatedUnion("type", [
    BuiltinToolSchema,
    WebhookToolSchema,
    ClientToolSchema,
    McpToolSchema,
    AgentToolSchema,
    A2aToolSchema,
    ProviderToolSchema,
  ])
  .openapi("Tool");
