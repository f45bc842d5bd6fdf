/**
 * A credential's PUT body made into what the vault stores: origins normalized (no wildcard, none
 * the URL guard refuses) and the token URL checked as every tenant URL is, each error with its
 * path. Pure.
 */
import { normalizeOrigin } from "../egress/allowed-origins";
import { checkTenantUrl } from "../egress/tenant-url";
import type { FieldError } from "../problems";
import type { PutCredentialRequest } from "./schemas";
import type { CredentialSecrets, PutCredential } from "./types";

export type PutCheck = { ok: true; value: PutCredential } | { ok: false; errors: FieldError[] };

export function toPutCredential(
  body: PutCredentialRequest,
  target: { subject: string | null; name: string; max: number; now: number },
  options: { allowPrivateUrls: boolean },
): PutCheck {
  const errors: FieldError[] = [];
  const origins: string[] = [];
  body.allowed_origins.forEach((raw, i) => {
    const result = normalizeOrigin(raw, options);
    if (result.ok) origins.push(result.origin);
    else errors.push({ path: `body.allowed_origins.${i}`, message: result.message });
  });
  const oauth2 = body.oauth2;
  let tokenUrl: string | null = null;
  if (oauth2?.token_url !== undefined) {
    const checked = checkTenantUrl(oauth2.token_url, options);
    if (checked.ok) tokenUrl = checked.url.href;
    else errors.push({ path: "body.oauth2.token_url", message: checked.message.replace("webhook URL", "token URL") });
  }
  if (errors.length > 0) return { ok: false, errors };
  const secrets: CredentialSecrets = oauth2
    ? {
        access_token: oauth2.access_token,
        ...(oauth2.refresh_token !== undefined ? { refresh_token: oauth2.refresh_token } : {}),
        ...(oauth2.client_secret !== undefined ? { client_secret: oauth2.client_secret } : {}),
      }
    : { value: body.value! };
  return {
    ok: true,
    value: {
      ...target,
      type: body.type,
      header: body.type === "header" ? body.header!.toLowerCase() : "authorization",
      secrets,
      expiresAt: oauth2?.expires_at !== undefined ? Date.parse(oauth2.expires_at) : null,
      tokenUrl,
      clientId: oauth2?.client_id ?? null,
      allowedOrigins: [...new Set(origins)],
    },
  };
}
