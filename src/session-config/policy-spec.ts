/**
 * A tool policy as a session's configuration holds it (`policy: { cedar }`, an agent version's
 * or a create body's) and the limits every policy is held to (src/policy/ checks the text).
 */
import { z } from "@hono/zod-openapi";

/** A policy's text, in bytes of UTF-8: parsing and validating it is work done on the caller's behalf. */
export const MAX_POLICY_BYTES = 64 * 1024;
/** Statements of one policy: each is evaluated on every tool call, so their count bounds a call's cost (BENCHMARKS.md). */
export const MAX_POLICY_STATEMENTS = 1_000;

export interface PolicySpec {
  cedar: string;
}

/** Characters: a text of MAX_POLICY_BYTES bytes has at most that many; the bytes are counted when it is checked. */
export const CedarTextSchema = z
  .string()
  .min(1)
  .max(MAX_POLICY_BYTES)
  .openapi({
    description: `Cedar policies, validated against the platform's schema (\`GET /v1/tenant/policy/schema\`): at most ${MAX_POLICY_BYTES} bytes and ${MAX_POLICY_STATEMENTS} statements.`,
    example:
      '@id("no-fetch-for-end-users") forbid(principal, action, resource == Tool::"http_fetch") when { principal.kind == "end_user" };',
  });

export const PolicySpecSchema = z.object({ cedar: CedarTextSchema }).strict().openapi("PolicySpec", {
  description:
    "A tool policy judged beside the tenant's (docs/policy.md): a `forbid` in either denies the call; a `permit` annotated `@require_approval` holds it.",
});
