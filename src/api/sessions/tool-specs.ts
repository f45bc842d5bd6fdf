/**
 * The checks on a session's tool list that its schema cannot make: where a webhook may
 * point, and the registry's own rules (unique names, known built-ins, how many). Pure.
 */
import { checkToolSpecs } from "../../agents/tools/registry";
import { checkUrl, describeRefusal } from "../../agents/tools/url-guard";
import type { ToolSpec } from "../../agents/types";
import type { FieldError } from "../errors";

export interface ToolCheckOptions {
  /** Local development and tests only: webhooks may use http and reach private addresses. */
  allowPrivateUrls: boolean;
}

/**
 * Where a webhook may send a tenant's tool calls: https only, and never loopback, private,
 * link-local or metadata addresses, so a session cannot turn the platform into a proxy into
 * its own network. The Agent checks again on every call (a DNS answer can change); this check
 * gives the caller a 400 now instead of a failing tool later. Null when the URL is acceptable.
 */
export function checkWebhookUrl(url: string, options: ToolCheckOptions): string | null {
  const schemes = options.allowPrivateUrls ? ["http", "https"] : ["https"];
  const result = checkUrl(url, { allowPrivate: options.allowPrivateUrls, allowedSchemes: schemes });
  if (result.ok) return null;
  if (result.reason === "scheme_not_allowed" && !options.allowPrivateUrls) return "Webhook URLs must use https.";
  return `Not an allowed webhook URL: ${describeRefusal(result.reason, url)}.`;
}

/** Every problem found, one per field where it can be placed, for a single 400. */
export function checkSessionTools(tools: readonly ToolSpec[], options: ToolCheckOptions): FieldError[] {
  const errors: FieldError[] = [];
  for (const [i, tool] of tools.entries()) {
    if (tool.type !== "webhook") continue;
    const problem = checkWebhookUrl(tool.url, options);
    if (problem) errors.push({ path: `body.tools.${i}.url`, message: problem });
  }
  const registryProblem = checkToolSpecs(tools);
  if (registryProblem) errors.push({ path: "body.tools", message: registryProblem });
  return errors;
}
