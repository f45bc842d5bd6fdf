/**
 * A tenant's list of allowed origins for the URLs its sessions declare (webhook tools today;
 * status-webhook notify URLs and MCP servers can use the same check). Pure.
 */
import { checkUrl, describeRefusal } from "./url-guard";

/** A list longer than this is not a policy any more. */
export const MAX_ALLOWED_ORIGINS = 50;
export const MAX_ORIGIN_CHARS = 300;

/**
 * Dot-separated labels of letters, digits, `-` and `_`: a name DNS can answer. The URL parser
 * also takes `*` and other marks in a host, so `https://*.example.com` would parse, be stored
 * and match no URL ever; an origin is one host, and wildcards are refused instead.
 */
const HOST_NAME = /^(?:[a-z0-9_-]+\.)*[a-z0-9_-]+$/;

export type OriginParse = { ok: true; origin: string } | { ok: false; message: string };

/**
 * The normalized origin (`https://hooks.example.com`, lower-case host, default port dropped) of
 * `raw`, which must be an origin: a scheme and host with an optional port, and nothing after.
 */
export function normalizeOrigin(raw: string, options: { allowPrivateUrls: boolean }): OriginParse {
  const schemes = options.allowPrivateUrls ? ["http", "https"] : ["https"];
  const result = checkUrl(raw, { allowPrivate: options.allowPrivateUrls, allowedSchemes: schemes });
  if (!result.ok) {
    if (result.reason === "scheme_not_allowed" && !options.allowPrivateUrls) return { ok: false, message: "Origins must use https." };
    return { ok: false, message: `Not an allowed origin: ${describeRefusal(result.reason, raw)}.` };
  }
  const { url } = result;
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "" || /[?#]/.test(raw)) {
    return { ok: false, message: "Must be an origin (scheme, host and optional port) with no path, query or fragment." };
  }
  if (!url.hostname.startsWith("[") && !HOST_NAME.test(url.hostname)) {
    return { ok: false, message: "Must be one host name: wildcards and other marks are not allowed; list each origin." };
  }
  return { ok: true, origin: url.origin };
}

/** Whether `url` may be called under `allowed` (null: no list, every origin the guard allows). */
export function isOriginAllowed(url: string | URL, allowed: readonly string[] | null): boolean {
  if (allowed === null) return true;
  let parsed: URL;
  try {
    parsed = typeof url === "string" ? new URL(url) : url;
  } catch {
    return false;
  }
  return allowed.includes(parsed.origin);
}
