/**
 * Where a tenant call (a webhook tool, a status webhook, an MCP server) may point, decided once by parsing (never by string prefix): the same
 * check at creation, which stores the normalized URL, and at every call. Pure.
 */
import { isOriginAllowed } from "./allowed-origins";
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

/**
 * A URL a session's call may reach now: the URL rule (`check`: the webhook one unless a tool has
 * its own), then the tenant's `webhook_origins` as they are at the call (they may have narrowed).
 */
export function checkAllowedTenantUrl(
  raw: string,
  options: TenantUrlOptions & { origins: readonly string[] | null },
  check: (raw: string, options: TenantUrlOptions) => TenantUrlCheck = checkTenantUrl,
): TenantUrlCheck {
  const target = check(raw, options);
  if (!target.ok) return target;
  if (!isOriginAllowed(target.url, options.origins))
    return { ok: false, message: `the origin ${target.url.origin} is not in the tenant's webhook_origins` };
  return target;
}
