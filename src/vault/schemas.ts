/**
 * The credential request and response bodies as zod schemas. Every rule with a path is here but
 * the two that need the deployment's URL policy (origins, token URL: `checkPutBody`).
 */
import { z } from "@hono/zod-openapi";
import { FORBIDDEN_CREDENTIAL_HEADERS } from "../egress/credential-header";
import { MAX_ALLOWED_ORIGINS, MAX_ORIGIN_CHARS } from "../egress/allowed-origins";
import { MAX_WEBHOOK_URL_CHARS, MCP_HEADER_NAME_PATTERN, MCP_HEADER_VALUE_PATTERN } from "../session-config/tool-schemas";
import { CREDENTIAL_NAME_PATTERN, CREDENTIAL_STATUSES, CREDENTIAL_TYPES, MAX_SECRET_BYTES } from "./types";

const encoder = new TextEncoder();

/** Printable, without line breaks: each goes into a header or a form body. */
const secret = (description: string) =>
  z
    .string()
    .min(1)
    .max(MAX_SECRET_BYTES, { abort: true })
    .regex(MCP_HEADER_VALUE_PATTERN, "Must be printable, without line breaks.")
    .refine((value) => encoder.encode(value).byteLength <= MAX_SECRET_BYTES, `At most ${MAX_SECRET_BYTES} bytes.`)
    .openapi({ description, writeOnly: true });

export const CredentialNameSchema = z
  .string()
  .max(64, { abort: true })
  .regex(CREDENTIAL_NAME_PATTERN, "Must be 1-64 lower-case letters, digits, `_` or `-`.")
  .openapi({ description: "The name tools give in `auth.credential`.", example: "github" });

export const OAuth2InputSchema = z
  .object({
    access_token: secret("Sent as `Authorization: Bearer …`."),
    refresh_token: secret("With `token_url`: an expired or refused access token is refreshed.").optional(),
    expires_at: z.iso
      .datetime({ offset: true })
      .max(64)
      // The vault keeps epoch milliseconds, never negative: a date before 1970 is no expiry it can hold.
      .refine((value) => Date.parse(value) >= 0, "Must be 1970 or later.")
      .optional()
      .openapi({ description: "When the access token expires (ISO 8601)." }),
    token_url: z.string().max(MAX_WEBHOOK_URL_CHARS).optional().openapi({
      format: "uri",
      description: "The token endpoint, called like any URL a tenant gives (https; no private address).",
      example: "https://github.com/login/oauth/access_token",
    }),
    client_id: z.string().min(1).max(256).regex(MCP_HEADER_VALUE_PATTERN, "Must be printable, without line breaks.").optional(),
    client_secret: secret("Sent to `token_url` with the refresh token.").optional(),
  })
  .strict()
  .openapi("OAuth2CredentialInput");

export const PutCredentialRequestSchema = z
  .object({
    type: z.enum(CREDENTIAL_TYPES),
    value: secret("bearer: the token (sent as `Authorization: Bearer …`); header: the header's value.").optional(),
    header: z
      .string()
      .max(100, { abort: true })
      .regex(MCP_HEADER_NAME_PATTERN, "Not an HTTP header name.")
      .refine((name) => !FORBIDDEN_CREDENTIAL_HEADERS.has(name.toLowerCase()), "This header is set by the platform.")
      .optional()
      .openapi({ description: "header only: the header's name.", example: "X-Api-Key" }),
    oauth2: OAuth2InputSchema.optional(),
    allowed_origins: z
      .array(z.string().max(MAX_ORIGIN_CHARS).openapi({ format: "uri" }))
      .min(1)
      .max(MAX_ALLOWED_ORIGINS)
      .openapi({ description: "The only origins the credential is sent to; no wildcard.", example: ["https://api.github.com"] }),
  })
  .strict()
  .superRefine((body, ctx) => {
    const needs = (field: "value" | "header" | "oauth2", present: boolean) => {
      if (present && body[field] === undefined) ctx.addIssue({ code: "custom", path: [field], message: `Required for type ${body.type}.` });
      if (!present && body[field] !== undefined)
        ctx.addIssue({ code: "custom", path: [field], message: `Not allowed for type ${body.type}.` });
    };
    needs("value", body.type !== "oauth2");
    needs("header", body.type === "header");
    needs("oauth2", body.type === "oauth2");
    if (body.oauth2?.refresh_token !== undefined && body.oauth2.token_url === undefined)
      ctx.addIssue({ code: "custom", path: ["oauth2", "token_url"], message: "Required with refresh_token." });
  })
  .openapi("PutCredentialRequest", {
    example: { type: "bearer", value: "ghp_exampletoken", allowed_origins: ["https://api.github.com"] },
  });
export type PutCredentialRequest = z.infer<typeof PutCredentialRequestSchema>;

export const CredentialSchema = z
  .object({
    name: z.string().openapi({ example: "github" }),
    type: z.enum(CREDENTIAL_TYPES),
    header: z.string().openapi({ description: "The header it fills, lower case.", example: "authorization" }),
    allowed_origins: z.array(z.string()).openapi({ example: ["https://api.github.com"] }),
    expires_at: z.string().nullable().openapi({ description: "oauth2: when the access token expires; null otherwise." }),
    updated_at: z.string(),
    status: z.enum(CREDENTIAL_STATUSES).openapi({
      description:
        "`expired`: past its expiry with no refresh token; `refresh_failed`: the token endpoint refused the refresh. Either way, put it again.",
    }),
  })
  .openapi("Credential", { description: "A credential as stored; never its secret." });

export const CredentialListSchema = z.object({ data: z.array(CredentialSchema) }).openapi("CredentialList");
