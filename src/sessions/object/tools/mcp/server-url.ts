/**
 * Where an MCP server may be, decided by parsing: the same guard as webhook tools (https only,
 * no loopback, private, link-local or metadata addresses), at creation, where the normalized
 * URL is stored, and again for every request the platform sends it. Pure.
 */
import { checkUrl, describeRefusal } from "../../../../egress/url-guard";

export type ServerUrlCheck = { ok: true; url: URL } | { ok: false; message: string };

export function checkMcpServerUrl(raw: string, options: { allowPrivateUrls: boolean }): ServerUrlCheck {
  const schemes = options.allowPrivateUrls ? ["http", "https"] : ["https"];
  const result = checkUrl(raw, { allowPrivate: options.allowPrivateUrls, allowedSchemes: schemes });
  if (result.ok) return { ok: true, url: result.url };
  if (result.reason === "scheme_not_allowed" && !options.allowPrivateUrls) return { ok: false, message: "MCP server URLs must use https." };
  return { ok: false, message: `Not an allowed MCP server URL: ${describeRefusal(result.reason, raw)}.` };
}
