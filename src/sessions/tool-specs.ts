/**
 * The checks on a session's tool list that its schema cannot make: where a webhook, an MCP
 * server or an A2A agent's card may point (the URL guard, and the tenant's allowed origins), whether the input schemas'
 * patterns can run on RE2, an approval timeout only where approval is required, and the
 * registry's own rules (unique names, known built-ins, how many); and the same URL checks for
 * the session's `notify_url`. Pure: the result carries the tools as they are stored.
 */
import { isOriginAllowed } from "../egress/allowed-origins";
import { approvalTimeoutProblem, checkToolList } from "./object/tools/registry";
import { checkTenantUrl } from "../egress/tenant-url";
import { MAX_REQUEST_PATTERN_SIZE } from "../shared/json-schema/patterns";
import { MAX_WEBHOOK_URL_CHARS } from "../session-config/tool-schemas";
import { checkSchema, estimateSchemaPatterns } from "../shared/json-schema/validator";
import { checkMcpServerUrl } from "./object/tools/mcp/server-url";
import type { A2aToolSpec, McpToolSpec, ToolSpec } from "../session-config/types";
import type { FieldError } from "../problems";

export interface ToolCheckOptions {
  /** Local development and tests only: webhooks may use http and reach private addresses. */
  allowPrivateUrls: boolean;
  /** The tenant's allowed webhook origins; null when it has set none. */
  webhookOrigins: readonly string[] | null;
}

export interface PreparedTools {
  /** The tools with every webhook URL in the parser's normalized form, the one stored and called. */
  tools: ToolSpec[];
  /** Every problem found, one per field where it can be placed, for a single 400. */
  errors: FieldError[];
}

export function prepareSessionTools(tools: readonly ToolSpec[], options: ToolCheckOptions): PreparedTools {
  const errors: FieldError[] = [];
  const prepared = tools.map((tool, i): ToolSpec => {
    const timeoutProblem = approvalTimeoutProblem(tool);
    if (timeoutProblem) errors.push({ path: `body.tools.${i}.approval_timeout_seconds`, message: sentenceCase(timeoutProblem) });
    if (tool.type === "mcp") return prepareMcp(tool, i, options, errors);
    if (tool.type === "a2a") return prepareA2a(tool, i, options, errors);
    if (tool.type !== "webhook") return tool;
    const url = callUrl(`body.tools.${i}.url`, checkTenantUrl(tool.url, options), options);
    if (!url.ok) errors.push(url.error);
    return url.ok ? { ...tool, url: url.url } : tool;
  });
  errors.push(...schemaProblems(prepared));
  const registryProblem = checkToolList(prepared);
  if (registryProblem) errors.push({ path: "body.tools", message: registryProblem });
  return { tools: prepared, errors };
}

export type NotifyUrlCheck = { ok: true; url: string } | { ok: false; error: FieldError };

/** A session's `notify_url`: the same guard and allowed origins as a webhook tool's URL, stored normalized. */
export function checkNotifyUrl(raw: string, options: ToolCheckOptions): NotifyUrlCheck {
  return checkCallUrl("body.notify_url", raw, options);
}

/** Any URL the platform calls for a tenant (its trace collector too): the webhook rule, reported at `path`. */
export function checkCallUrl(path: string, raw: string, options: ToolCheckOptions): NotifyUrlCheck {
  if (raw.length > MAX_WEBHOOK_URL_CHARS) return tooLong(path);
  return callUrl(path, checkTenantUrl(raw, options), options);
}

/** Past this length a URL is refused, raw or normalized: what delivers to it checks the same bound. */
function tooLong(path: string): NotifyUrlCheck {
  return { ok: false, error: { path, message: `A URL has at most ${MAX_WEBHOOK_URL_CHARS} characters.` } };
}

/**
 * Where a tenant call (a webhook tool, an MCP server, `notify_url`) may point: the URL guard's
 * answer (`check`), then the tenant's allowed origins; the URL as stored is the parser's form.
 */
function callUrl(path: string, check: { ok: true; url: URL } | { ok: false; message: string }, options: ToolCheckOptions): NotifyUrlCheck {
  if (!check.ok) return { ok: false, error: { path, message: check.message } };
  if (check.url.href.length > MAX_WEBHOOK_URL_CHARS) return tooLong(path);
  if (!isOriginAllowed(check.url, options.webhookOrigins)) {
    return { ok: false, error: { path, message: `The origin ${check.url.origin} is not in the tenant's webhook_origins.` } };
  }
  return { ok: true, url: check.url.href };
}

function sentenceCase(text: string): string {
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

/** An MCP server's URL: the same guard and allowed origins as a webhook's; stored normalized. */
function prepareMcp(tool: McpToolSpec, i: number, options: ToolCheckOptions, errors: FieldError[]): McpToolSpec {
  const url = callUrl(`body.tools.${i}.url`, checkMcpServerUrl(tool.url, options), options);
  if (!url.ok) errors.push(url.error);
  return url.ok ? { ...tool, url: url.url } : tool;
}

/** An A2A agent's card URL: the webhook rule; the endpoint the card names is checked the same way at each call. */
function prepareA2a(tool: A2aToolSpec, i: number, options: ToolCheckOptions, errors: FieldError[]): A2aToolSpec {
  const url = callUrl(`body.tools.${i}.agent_card_url`, checkTenantUrl(tool.agent_card_url, options), options);
  if (!url.ok) errors.push(url.error);
  return url.ok ? { ...tool, agent_card_url: url.url } : tool;
}

/**
 * Patterns RE2 cannot run, each on its own field (`body.tools.0.input_schema.properties.q.pattern`).
 * The sizes of all schemas are estimated first, so a request that would take long to compile is
 * refused before anything is compiled.
 */
function schemaProblems(tools: readonly ToolSpec[]): FieldError[] {
  const schemas = tools.flatMap((tool, i) => (tool.type === "webhook" || tool.type === "client" ? [{ i, schema: tool.input_schema }] : []));
  const total = schemas.reduce((sum, { schema }) => sum + estimateSchemaPatterns(schema), 0);
  if (total > MAX_REQUEST_PATTERN_SIZE) {
    return [
      {
        path: "body.tools",
        message: `The tools' patterns may expand to at most ${MAX_REQUEST_PATTERN_SIZE} steps in all (counted repetitions such as {1000} count in full).`,
      },
    ];
  }
  return schemas.flatMap(({ i, schema }) =>
    checkSchema(schema).map((problem) => ({
      path: ["body", "tools", String(i), "input_schema", ...problem.path].join("."),
      message: problem.message,
    })),
  );
}
