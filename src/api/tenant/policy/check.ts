/**
 * `POST /v1/tenant/policy/check`: judges one call as the loop would, by the stored tenant policy
 * (or a draft) and an agent's, so a tenant tests a policy before it deploys it. Changes nothing.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../../objects";
import { loadCedar } from "../../../policy/load";
import { principalOf } from "../../../policy/request";
import { defaultTrust } from "../../../policy/trust";
import type { AppEnv } from "../../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../../errors";
import { requireScope } from "../../middleware/require-scope";
import { jsonBody, jsonContent } from "../../schemas";
import { bearerAuth } from "../../security";
import { requireValidPolicy } from "../../../sessions/policy-check";
import { PolicyCheckRequestSchema, PolicyDecisionSchema } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/tenant/policy/check",
  operationId: "checkTenantPolicy",
  summary: "Judge one tool call by your tool policy",
  tags: ["Tenant"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  request: {
    body: jsonBody(PolicyCheckRequestSchema, {
      principal: "end_user:alice",
      tool: { name: "send_email", type: "webhook" },
      input: { to: "bob@example.com" },
      tainted: true,
    }),
  },
  responses: {
    200: jsonContent(PolicyDecisionSchema, "The decision the loop would make."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { tenantId } = c.var.principal;
  const body = c.req.valid("json");
  if (body.cedar !== undefined) await requireValidPolicy(body.cedar, "body.cedar");
  if (body.agent_cedar !== undefined) await requireValidPolicy(body.agent_cedar, "body.agent_cedar");
  const tenant = body.cedar ?? (await tenantIndexStub(c.env, tenantId).getPolicy(tenantId))?.cedar ?? null;
  const principal = principalOf(body.principal, body.key_id);
  const decision = (await loadCedar()).judge(
    { tenant, agent: body.agent_cedar ?? null },
    {
      principal: { ...principal, ...(body.principal_kind ? { kind: body.principal_kind } : {}) },
      tool: { ...body.tool, trust: body.tool.trust ?? defaultTrust(body.tool.type, body.tool.name) },
      input: body.input ?? {},
      tainted: body.tainted,
      agent: body.agent ?? null,
      session_metadata: body.session_metadata ?? null,
    },
  );
  return c.json(decision, 200);
};
