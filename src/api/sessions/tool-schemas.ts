/**
 * Schemas of a session's tools (built-in, webhook, client, MCP) and of the JSON Schemas a tool's
 * input and a run's answer are held to.
 */
import { z } from "@hono/zod-openapi";
import { MAX_PATTERN_SUBJECT_CHARS } from "../../shared/json-schema/patterns";
import { MAX_MCP_SERVER_NAME_CHARS, MCP_SERVER_NAME_PATTERN } from "../../sessions/object/tools/mcp/naming";
import { MAX_RUN_TOOLS } from "../../sessions/object/tools/mcp/plan";
import { MAX_APPROVAL_TIMEOUT_SECONDS, TOOL_NAME_PATTERN } from "../../sessions/object/tools/registry";
import { jsonDepth, MAX_JSON_DEPTH } from "../json-depth";

export const MAX_TOOL_DESCRIPTION_CHARS = 4_000;
/** A tool's JSON Schema, serialized; a larger one is a prompt, not a schema. */
export const MAX_INPUT_SCHEMA_CHARS = 32 * 1024;
export const MAX_WEBHOOK_URL_CHARS = 2_048;
/** MCP tool names are at most 128 characters (the protocol's recommendation). */
export const MAX_MCP_TOOL_NAME_CHARS = 128;
export const MAX_MCP_HEADERS = 20;
export const MAX_MCP_HEADER_VALUE_CHARS = 4_096;
/** An HTTP token (RFC 9110). */
const MCP_HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
/** Visible characters, spaces and tabs: no line break can split one header into two. */
const MCP_HEADER_VALUE_PATTERN = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Headers the transport or the platform sets: a tenant's value would break the protocol or the request's framing. */
const FORBIDDEN_MCP_HEADERS: ReadonlySet<string> = new Set([
  "host",
  "content-length",
  "content-type",
  "accept",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
  "proxy-authorization",
  "proxy-connection",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
]);

const ToolNameSchema = z.string().regex(TOOL_NAME_PATTERN, "Must be 1-64 letters, digits, `_` or `-`.").openapi({ example: "lookup_order" });

const InputSchemaSchema = z
  .record(z.string(), z.unknown())
  .refine((schema) => schema.type === "object", 'Must be a JSON Schema with "type": "object" at the top.')
  .refine((schema) => JSON.stringify(schema).length <= MAX_INPUT_SCHEMA_CHARS, `Must be at most ${MAX_INPUT_SCHEMA_CHARS} characters as JSON.`)
  .refine((schema) => jsonDepth(schema) <= MAX_JSON_DEPTH, `Must be nested at most ${MAX_JSON_DEPTH} levels deep.`)
  .openapi({
    description:
      "A JSON Schema (2020-12) for the tool's input; its top level is an object. `pattern` and `patternProperties` " +
      "use the RE2 subset of ECMA-262 regular expressions (no backreferences or lookaround), run in linear time; " +
      `strings longer than ${MAX_PATTERN_SUBJECT_CHARS} characters never match a pattern or a format.`,
    example: { type: "object", properties: {} },
  });

/** A run's `output_schema`: the same bounds as a tool's input schema, since the Anthropic provider sends it as one. */
export const OutputSchemaSchema = z
  .record(z.string(), z.unknown())
  .refine((schema) => schema.type === "object", 'Must be a JSON Schema with "type": "object" at the top.')
  .refine((schema) => JSON.stringify(schema).length <= MAX_INPUT_SCHEMA_CHARS, `Must be at most ${MAX_INPUT_SCHEMA_CHARS} characters as JSON.`)
  .refine((schema) => jsonDepth(schema) <= MAX_JSON_DEPTH, `Must be nested at most ${MAX_JSON_DEPTH} levels deep.`)
  .openapi("OutputSchema", {
    description:
      "A JSON Schema (2020-12) the run's final answer must be valid for; its top level is an object. The answer is checked with the " +
      "same validator as tool inputs (patterns on RE2); an invalid answer is told to the model, which answers again, and a run without a " +
      "valid answer after 3 tries (or at the step limit) fails with `invalid_output`.",
    example: { type: "object", properties: { total: { type: "number" }, currency: { type: "string" } }, required: ["total", "currency"] },
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
    url: z.string().max(MAX_WEBHOOK_URL_CHARS).openapi({ description: "An https URL on the public internet.", example: "https://example.com/tools/lookup" }),
    requires_approval: RequiresApprovalSchema,
    approval_timeout_seconds: ApprovalTimeoutSchema,
    at_most_once: z.boolean().optional().openapi({ description: "Never retried, even after a timeout or a 5xx." }),
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
    url: z.string().max(MAX_WEBHOOK_URL_CHARS).openapi({ description: "The server's Streamable HTTP endpoint: https, on the public internet.", example: "https://mcp.example.com/mcp" }),
    allowed_tools: z
      .array(z.string().min(1).max(MAX_MCP_TOOL_NAME_CHARS))
      .max(MAX_RUN_TOOLS)
      .optional()
      .openapi({ description: "Only these of the server's tools are offered (its own names); all of them when absent." }),
    headers: z
      .record(
        z.string().regex(MCP_HEADER_NAME_PATTERN, "Not an HTTP header name.").refine((name) => !FORBIDDEN_MCP_HEADERS.has(name.toLowerCase()), "This header is set by the platform."),
        z.string().max(MAX_MCP_HEADER_VALUE_CHARS).regex(MCP_HEADER_VALUE_PATTERN, "Must be printable, without line breaks."),
      )
      .refine((headers) => Object.keys(headers).length <= MAX_MCP_HEADERS, `At most ${MAX_MCP_HEADERS} headers.`)
      .optional()
      .openapi({
        description: "Sent with every request to the server, e.g. `Authorization`. Write-only: every response shows each value as `********`.",
        example: { Authorization: "Bearer <token>" },
      }),
    requires_approval: RequiresApprovalSchema.openapi({ description: "Each call of any of the server's tools waits for an approve or deny first." }),
    approval_timeout_seconds: ApprovalTimeoutSchema,
  })
  .strict()
  .openapi("McpTool");

export const ToolSchema = z.discriminatedUnion("type", [BuiltinToolSchema, WebhookToolSchema, ClientToolSchema, McpToolSchema]).openapi("Tool");
