/** Schemas of the end-user routes: minting a token, and a subject in a path. */
import { z } from "@hono/zod-openapi";
import {
  DEFAULT_END_USER_TOKEN_TTL_SECONDS,
  MAX_END_USER_TOKEN_TTL_SECONDS,
  MIN_END_USER_TOKEN_TTL_SECONDS,
} from "../../auth/end-user-token";
import { END_USER_SCOPES, END_USER_SUBJECT_PATTERN, MAX_END_USER_SUBJECT_CHARS, type Scope } from "../../auth/principal";
import { MetadataSchema } from "../../session-config/request-schemas";

export const EndUserSubjectSchema = z
  .string()
  .min(1)
  .max(MAX_END_USER_SUBJECT_CHARS)
  .regex(END_USER_SUBJECT_PATTERN, "Must be 1-128 letters, digits, `_`, `@`, `.`, `:` or `-`.")
  .openapi({
    description: "The end user as the tenant's backend names it: 1-128 letters, digits, `_`, `@`, `.`, `:` or `-`.",
    example: "user_42",
  });

export const EndUserScopeSchema = z.enum(END_USER_SCOPES as [Scope, ...Scope[]]).openapi("EndUserScope");

export const EndUserTokenRequestSchema = z
  .object({
    subject: EndUserSubjectSchema,
    scopes: z.array(EndUserScopeSchema).min(1).max(END_USER_SCOPES.length).optional().openapi({
      description:
        "At most the caller's own scopes; `sessions:read sessions:write` when absent. Memory scopes reach `users.<subject>` only.",
    }),
    ttl_seconds: z
      .number()
      .int()
      .min(MIN_END_USER_TOKEN_TTL_SECONDS)
      .max(MAX_END_USER_TOKEN_TTL_SECONDS)
      .optional()
      .openapi({
        description: `Seconds the token lives (${DEFAULT_END_USER_TOKEN_TTL_SECONDS} when absent), never past the caller's own credential.`,
      }),
    metadata: MetadataSchema.optional().openapi({
      description: "Signed into the token and shown by `GET /v1/me`; the platform does not interpret it.",
    }),
  })
  .strict()
  .openapi("EndUserTokenRequest");

export const EndUserTokenSchema = z
  .object({
    access_token: z.string().openapi({ description: "A platform JWT for principal `end_user:<subject>`." }),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int().openapi({ description: "Seconds until it expires.", example: 900 }),
    subject: z.string().openapi({ description: "The subject, as asked.", example: "user_42" }),
  })
  .openapi("EndUserToken");

export const SubjectParamsSchema = z.object({
  subject: EndUserSubjectSchema.openapi({ param: { name: "subject", in: "path" } }),
});
