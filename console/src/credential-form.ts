/**
 * The credential form's fields made into a PUT body: only the fields of the chosen type, origins
 * one per line, an expiry from the date input. The platform judges every value. Pure.
 */
import type { PutCredentialRequest } from "./types";

export type CredentialType = PutCredentialRequest["type"];

export interface CredentialForm {
  type: CredentialType;
  /** bearer: the token; header: the header's value. */
  value: string;
  header: string;
  accessToken: string;
  refreshToken: string;
  /** A `datetime-local` value, or "". */
  expiresAt: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** One origin a line. */
  origins: string;
}

export const EMPTY_CREDENTIAL_FORM: CredentialForm = {
  type: "bearer",
  value: "",
  header: "",
  accessToken: "",
  refreshToken: "",
  expiresAt: "",
  tokenUrl: "",
  clientId: "",
  clientSecret: "",
  origins: "",
};

export function credentialBody(form: CredentialForm): PutCredentialRequest {
  const allowed_origins = form.origins
    .split(/\s+/)
    .map((line) => line.trim())
    .filter(Boolean);
  if (form.type === "bearer") return { type: "bearer", value: form.value, allowed_origins };
  if (form.type === "header") return { type: "header", header: form.header.trim(), value: form.value, allowed_origins };
  const optional = (text: string) => (text.trim() === "" ? undefined : text.trim());
  const oauth2: NonNullable<PutCredentialRequest["oauth2"]> = { access_token: form.accessToken };
  if (form.refreshToken !== "") oauth2.refresh_token = form.refreshToken;
  if (form.clientSecret !== "") oauth2.client_secret = form.clientSecret;
  const tokenUrl = optional(form.tokenUrl);
  if (tokenUrl) oauth2.token_url = tokenUrl;
  const clientId = optional(form.clientId);
  if (clientId) oauth2.client_id = clientId;
  if (form.expiresAt !== "" && !Number.isNaN(Date.parse(form.expiresAt))) oauth2.expires_at = new Date(form.expiresAt).toISOString();
  return { type: "oauth2", oauth2, allowed_origins };
}
