/**
 * `POST /v1/evals`: an agent version (an alias or `agt_…` alone resolved now, once, so every item
 * runs the same version) over a dataset, each item an ordinary session of the caller's, scored as
 * it ends. Answered 202 at once; the agent store's alarm runs it (src/evals/runner.ts).
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { AgentClient } from "../../agents/client";
import { parseAgentRef } from "../../agents/refs";
import { EvalClient } from "../../evals/client";
import type { EvalCreator } from "../../evals/types";
import { isModelAllowed } from "../../models/catalog";
import { scheduleCreator } from "../../schedules/binding";
import { actorOf } from "../actor";
import { auditContext } from "../audit-context";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses, type FieldError } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { headerRefs } from "../openapi-headers";
import { jsonBody } from "../schemas";
import { bearerAuth } from "../security";
import { knownDatasetId } from "../datasets/ids";
import { CREATE_EVAL_EXAMPLE, CreateEvalRequestSchema, EvalSchema } from "./schemas";

/** Sessions an eval runs at once when the body names no concurrency (and the tenant's slots allow). */
export const DEFAULT_EVAL_CONCURRENCY = 5;

export const route = createRoute({
  method: "post",
  path: "/v1/evals",
  operationId: "createEval",
  summary: "Run an eval",
  description:
    "Runs each item of the dataset as a session of the agent version (`metadata.eval_id`, `metadata.eval_item`), at most `concurrency` at once, " +
    "then scores it. The sessions are the caller's: limits, budgets and run slots apply as to any. 409 for an archived agent; 400 at " +
    "`body.agent` for an unknown agent, version or alias, at `body.scorers.<n>` for a bad scorer, at `body.concurrency` above the tenant's " +
    "`max_concurrent_runs`.",
  tags: ["Evals"],
  security: bearerAuth("agents:write"),
  middleware: [requireScope("agents:write")] as const,
  request: { body: jsonBody(CreateEvalRequestSchema, CREATE_EVAL_EXAMPLE) },
  responses: {
    202: { description: "The eval, started.", headers: headerRefs("Location"), content: { "application/json": { schema: EvalSchema } } },
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 404, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const actor = actorOf(c);
  const body = c.req.valid("json");
  const now = Date.now();
  const errors: FieldError[] = [];
  const slots = actor.limits.max_concurrent_runs;
  if (body.concurrency !== undefined && body.concurrency > slots)
    errors.push({ path: "body.concurrency", message: `At most the tenant's max_concurrent_runs, ${slots}.` });
  body.scorers.forEach((scorer, i) => {
    if (scorer.type === "judge" && !isModelAllowed(actor.config.models, actor.models, scorer.model))
      errors.push({ path: `body.scorers.${i}.model`, message: `The model "${scorer.model}" is not available to this tenant.` });
  });
  if (errors.length) throw new ApiError("validation_failed", "The eval cannot run as asked; see errors.", { errors });
  const datasetId = knownDatasetId(body.dataset_id);
  const agent = await resolveAgent(c.env, actor.principal.tenantId, body.agent);
  const client = new EvalClient(c.env, actor.principal.tenantId);
  const created = await client.call(
    "createEval",
    {
      agent,
      datasetId,
      scorers: body.scorers,
      concurrency: body.concurrency ?? Math.min(DEFAULT_EVAL_CONCURRENCY, slots),
      creator: scheduleCreator(actor.principal, now) as EvalCreator,
      createdBy: actor.principal.subject,
      now,
    },
    auditContext(c),
  );
  c.header("Location", `/v1/evals/${created.id}`);
  return c.json(created as never, 202);
};

/** The version the eval runs; an unknown agent, version or alias is the body's fault (400), an archived agent a 409. */
async function resolveAgent(
  env: AppEnv["Bindings"],
  tenantId: string,
  text: string,
): Promise<{ agent_id: string; version: number; ref: string }> {
  const ref = parseAgentRef(text);
  if (!ref)
    throw new ApiError("validation_failed", "Not an agent reference.", {
      errors: [{ path: "body.agent", message: "Not an agent reference." }],
    });
  try {
    const resolved = await new AgentClient(env, tenantId).resolve(ref);
    return { agent_id: resolved.agentId, version: resolved.version, ref: text };
  } catch (error) {
    if (error instanceof ApiError && error.code === "not_found")
      throw new ApiError("validation_failed", error.detail, { errors: [{ path: "body.agent", message: error.detail }] });
    if (error instanceof ApiError && error.code === "conflict")
      throw new ApiError("conflict", error.detail, { errors: [{ path: "body.agent", message: error.detail }] });
    throw error;
  }
}
