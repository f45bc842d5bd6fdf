/**
 * Where a tenant call (a webhook tool, a status webhook, an MCP server) may point, decided once by parsing (never by string prefix): the same
 * check at creation, which stores the normalized URL, and at every call. Pure.
 */
import { checkUrl, describeRefusal } from "./url-guard";

export interface TenantUrlOptions {
  /** Local development and tests only: webhooks may use http and reach private addresses. */
  allowPrivateUrls: boolean;
}

export type TenantUrlCheck = { ok: true; url: URL } | { ok: false; message: string };

/**
 * https only, and never loopback, private, link-local or metadata addresses, so a session cannot
 * turn the platform into a proxy into a network. The URL parser decides what the URL is: `HTTPS://`,
 * a leading space or `https:host/x` are the same https URL to it, and to the fetch that follows.
 */
export function checkTenantUrl(raw: string, options: TenantUrlOptions): TenantUrlCheck {
  const schemes = options.allowPrivateUrls ? ["http", "https"] : ["https"];
  const result = checkUrl(raw, { allowPrivate: options.allowPrivateUrls, allowedSchemes: schemes });
  if (result.ok) return { ok: true, url: result.url };
  if (result.reason === "scheme_not_allowed" && !options.allowPrivateUrls) return { ok: false, message: "Webhook URLs must use https." };
  return { ok: false, message: `Not an allowed webhook URL: ${describeRefusal(result.reason, raw)}.` };
}
