/**
 * The OAuth2 refresh-token grant (RFC 6749 §6) against a credential's `token_url`, through the
 * guarded fetch like any URL a tenant chose. The answer says whether a failure is the grant's
 * (the user must connect again) or the endpoint's (try later); no secret reaches a detail.
 */
import { safeFetch } from "../egress/safe-fetch";
import { MAX_SECRET_BYTES } from "./types";

/** The whole exchange, connection and body; a token endpoint answers in well under a second. */
export const REFRESH_TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 64 * 1024;
const encoder = new TextEncoder();

export interface RefreshGrant {
  tokenUrl: string;
  refreshToken: string;
  clientId: string | null;
  clientSecret: string | null;
}

export type TokenAnswer =
  | { ok: true; accessToken: string; refreshToken: string | null; expiresAt: number | null }
  /** `permanent`: the endpoint refused the grant (400, 401, an `error` field): refreshing again will not help. */
  | { ok: false; permanent: boolean; detail: string };

export async function requestTokens(
  grant: RefreshGrant,
  options: { allowPrivateUrls: boolean; now: () => number; fetchImpl?: typeof fetch },
): Promise<TokenAnswer> {
  const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: grant.refreshToken });
  if (grant.clientId !== null) form.set("client_id", grant.clientId);
  if (grant.clientSecret !== null) form.set("client_secret", grant.clientSecret);
  const result = await safeFetch(
    grant.tokenUrl,
    {
      method: "POST",
      // Some endpoints (GitHub's) answer form-encoded unless JSON is asked for.
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: form.toString(),
    },
    {
      allowPrivate: options.allowPrivateUrls,
      allowedSchemes: options.allowPrivateUrls ? ["http", "https"] : ["https"],
      timeoutMs: REFRESH_TIMEOUT_MS,
      maxBytes: MAX_ANSWER_BYTES,
      // A body holding the refresh token is never sent on to another address.
      maxRedirects: 0,
      textOnly: false,
      ...(options.fetchImpl ? { fetchImpl: options.fetchImpl } : {}),
    },
  );
  // Only the grant's own refusal is permanent (RFC 6749 §5.2: 400/401, or an `error` field):
  // a refused URL, a redirect, a 408, a 429, a 5xx or an odd answer may pass, so the credential stays.
  if (!result.ok) return { ok: false, permanent: false, detail: `the token endpoint could not be used: ${result.detail}` };
  if (result.status === 429 || result.status >= 500)
    return { ok: false, permanent: false, detail: `the token endpoint answered ${result.status}` };
  const fields = parseAnswer(result.body, result.contentType);
  // RFC 6749's `error` is a string; an object there is some other service's error shape.
  const error = typeof fields?.error === "string" ? errorCode(fields.error) : null;
  if (result.status === 400 || result.status === 401 || error !== null)
    return { ok: false, permanent: true, detail: `the token endpoint refused the refresh (${result.status}${error ? ` ${error}` : ""})` };
  if (result.status >= 300) return { ok: false, permanent: false, detail: `the token endpoint answered ${result.status}` };
  const accessToken = fields?.access_token;
  if (typeof accessToken !== "string" || accessToken === "" || encoder.encode(accessToken).byteLength > MAX_SECRET_BYTES)
    return { ok: false, permanent: false, detail: "the token endpoint's answer holds no usable access_token" };
  const refreshToken = typeof fields?.refresh_token === "string" && fields.refresh_token !== "" ? fields.refresh_token : null;
  if (refreshToken !== null && encoder.encode(refreshToken).byteLength > MAX_SECRET_BYTES)
    return { ok: false, permanent: false, detail: "the token endpoint's refresh_token is too long" };
  const expiresIn = Number(fields?.expires_in);
  const expiresAt = Number.isFinite(expiresIn) && expiresIn > 0 ? options.now() + Math.floor(expiresIn * 1000) : null;
  return { ok: true, accessToken, refreshToken, expiresAt };
}

/**
 * The endpoint's `error` as a code fit for logs and the audit log: RFC 6749's codes are lower-case
 * words, and anything else (a sentence, markup, a token echoed back) is only "unknown".
 */
function errorCode(value: string): string {
  return /^[a-z_]{1,64}$/.test(value) ? value : "unknown";
}

/** JSON, or the form encoding some endpoints still answer with. */
function parseAnswer(body: string, contentType: string | null): Record<string, unknown> | null {
  if ((contentType ?? "").toLowerCase().includes("x-www-form-urlencoded")) return Object.fromEntries(new URLSearchParams(body));
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
