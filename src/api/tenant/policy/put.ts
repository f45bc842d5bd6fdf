/**
 * `PUT /v1/tenant/policy`: sets the tenant's tool policy, once it validates against the schema.
 * It judges every tool call from the next one on, in every session of the tenant.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../../objects";
import { requireValidPolicy } from "../../../sessions/policy-check";
import { auditContext } from "../../audit-context";
import type { AppEnv } from "../../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../../errors";
import { requireScope } from "../../middleware/require-scope";
import { jsonBody, jsonContent } from "../../schemas";
import { bearerAuth } from "../../security";
import { PolicyBodySchema, TenantPolicySchema } from "./schemas";

export const route = createRoute({
  method: "put",
  path: "/v1/tenant/policy",
  operationId: "putTenantPolicy",
  summary: "Set your tenant's tool policy",
  description:
    "Cedar policies that judge each tool call before it runs (docs/policy.md). A `forbid` that matches ends the call with a `policy_denied` error; " +
    "a matching `permit` annotated `@require_approval` holds it for approval. Invalid policies are answered 400 with the validator's messages.",
  tags: ["Tenant"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  request: {
    body: jsonBody(PolicyBodySchema, {
      cedar:
        '@id("no-fetch-for-end-users") forbid(principal, action, resource == Tool::"http_fetch") when { principal.kind == "end_user" };',
    }),
  },
  responses: {
    200: jsonContent(TenantPolicySchema, "The policy as stored."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { tenantId } = c.var.principal;
  const { cedar } = c.req.valid("json");
  const statements = await requireValidPolicy(cedar, "body.cedar");
  return c.json(await tenantIndexStub(c.env, tenantId).putPolicy(tenantId, cedar, statements, auditContext(c)), 200);
};
