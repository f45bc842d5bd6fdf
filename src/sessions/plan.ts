/**
 * What a create body becomes before the session exists; for a session from an agent: its version resolved now, its definition under the caller's few
 * fields. Limits go tenant → agent → session, each only lowering; metadata merges over the
 * agent's; `notify_url` and `output_schema` replace the agent's. A problem in what the agent's
 * definition brings (a model the tenant no longer allows, a URL outside its `webhook_origins`)
 * is placed at `body.agent`, naming the definition's field, since the caller did not send it.
 */
import { AgentClient } from "../agents/client";
import { configOf } from "../agents/definition";
import { parseAgentRef } from "../agents/refs";
import { canaryBucket, routingKey } from "../agents/canary";
import { ApiError, type FieldError } from "../problems";
import type { Actor } from "./actor";
import { templateFields } from "../session-config/memory-namespace";
import { type PreparedSession, prepareSession, requireMemoryScopes } from "./prepare";
import { resolveSessionLimits } from "./limits";
import { requireValidPolicy } from "./policy-check";
import { agentToolProblems, requireAgentTools } from "./agent-tools";
import { AGENT_OWNED_FIELDS, type CreateSessionRequest, MAX_METADATA_ENTRIES } from "../session-config/request-schemas";
import type { AgentPin, ToolSpec } from "../session-config/types";

/** A create body checked and, when it names an agent, resolved: what the session is made of. */
export interface SessionPlan {
  /** The configuration as given, or the agent's with the caller's fields over it. */
  body: CreateSessionRequest;
  prepared: PreparedSession;
  agent: AgentPin | null;
  /** The name in the resolved version's definition; null without an agent. */
  agentName: string | null;
}

/**
 * Every check of a create body, and for one that names an agent, the agent's version resolved
 * now (one call to the tenant's agent store) and its definition merged under the caller's
 * fields. A schedule's creation asks it of its session body; each firing asks again.
 */
export async function planSession(
  actor: Actor,
  body: CreateSessionRequest,
  clientTools: Extract<ToolSpec, { type: "client" }>[] = [],
  sessionId: string | null = null,
): Promise<SessionPlan> {
  if (actor.principal.endUser !== undefined) requireEndUserBody(body);
  if (body.agent === undefined) {
    const prepared = prepareSession(actor, {
      ...body,
      ...(clientTools.length > 0 ? { tools: [...(body.tools ?? []), ...clientTools] } : {}),
    });
    if (body.policy) await requireValidPolicy(body.policy.cedar, "body.policy.cedar");
    await requireAgentTools(actor.env, actor.principal.tenantId, prepared.tools);
    return { body, prepared, agent: null, agentName: null };
  }
  return planAgentSession(actor, body, clientTools, sessionId);
}

/**
 * An end user runs the tenant's agents, never a configuration of its own: its browser would
 * otherwise choose the prompt, the tools the tenant's secret signs calls to, and where the
 * platform sends notifications.
 */
function requireEndUserBody(body: CreateSessionRequest): void {
  if (body.agent === undefined) throw new ApiError("forbidden", "An end user starts sessions from an agent: name one in `agent`.");
  if (body.notify_url !== undefined)
    throw new ApiError("validation_failed", undefined, {
      errors: [{ path: "body.notify_url", message: "An end user cannot choose where notifications go." }],
    });
}

const BESIDE_AGENT = "Not allowed beside `agent`: the agent's definition sets it.";

/**
 * `clientTools` (the caller's own, which only it runs) go after the definition's: a problem with
 * one is the caller's, at `body.tools.<its index>`; a name the agent's tools hold is refused there.
 */
async function planAgentSession(
  actor: Actor,
  body: CreateSessionRequest,
  clientTools: Extract<ToolSpec, { type: "client" }>[],
  sessionId: string | null,
): Promise<SessionPlan> {
  const beside = AGENT_OWNED_FIELDS.filter((field) => body[field] !== undefined);
  if (beside.length > 0)
    throw new ApiError("validation_failed", undefined, {
      errors: beside.map((field) => ({ path: `body.${field}`, message: BESIDE_AGENT })),
    });
  const ref = body.agent === undefined ? null : parseAgentRef(body.agent);
  if (ref === null)
    throw new ApiError("validation_failed", undefined, { errors: [{ path: "body.agent", message: "Not an agent reference." }] });
  // A session about to be made from an alias is routed (canary or not) by its caller's bucket; a check alone is not.
  if (ref.selector.kind === "alias" && sessionId !== null) {
    const { subject, endUser } = actor.principal;
    ref.selector.bucket = await canaryBucket(routingKey(subject, endUser !== undefined, `${ref.agentId}@${ref.selector.alias}`, sessionId));
  }
  const resolved = await new AgentClient(actor.env, actor.principal.tenantId).resolve(ref);
  const definition = configOf(resolved.definition);
  const fromAgent = (errors: FieldError[], fields: ReadonlySet<string>) => agentErrors(errors, fields, resolved.version);

  const ceiling = resolveSessionLimits(actor.limits, definition.limits);
  if (!ceiling.ok) throw new ApiError("validation_failed", undefined, { errors: fromAgent(ceiling.errors, new Set(["limits"])) });
  // null asks for none at all; absent keeps the agent's.
  const metadata =
    body.metadata === null ? null : definition.metadata || body.metadata ? { ...definition.metadata, ...body.metadata } : undefined;
  if (metadata && Object.keys(metadata).length > MAX_METADATA_ENTRIES) {
    throw new ApiError("validation_failed", undefined, {
      errors: [{ path: "body.metadata", message: `With the agent's, at most ${MAX_METADATA_ENTRIES} entries.` }],
    });
  }
  // The agent's author gave the grant; a caller who fills its templates with metadata of its own
  // chooses whose memory the session reads, and needs that access itself.
  const grant = definition.memory;
  if (grant && body.metadata) {
    const filled = templateFields(grant);
    if (Object.keys(body.metadata).some((field) => filled.has(field))) requireMemoryScopes(actor, grant);
  }
  const ownTools = definition.tools ?? [];
  clientTools = actor.principal.endUser === undefined ? clientTools : endUsersTools(clientTools, ownTools);
  const merged: CreateSessionRequest = {
    ...definition,
    ...(clientTools.length > 0 ? { tools: [...ownTools, ...clientTools] } : {}),
    ...(body.input !== undefined ? { input: body.input } : {}),
    limits: body.limits,
    metadata,
    notify_url: body.notify_url !== undefined ? body.notify_url : definition.notify_url,
    output_schema: body.output_schema !== undefined ? body.output_schema : definition.output_schema,
  };
  // The fields whose values came from the definition rather than from the caller.
  const agentFields = new Set<string>([
    ...AGENT_OWNED_FIELDS,
    ...(["notify_url", "output_schema"] as const).filter((field) => body[field] === undefined),
  ]);
  let prepared: PreparedSession;
  try {
    prepared = prepareSession({ ...actor, limits: ceiling.limits }, merged, "agent-session");
  } catch (error) {
    if (error instanceof ApiError && error.errors)
      throw new ApiError("validation_failed", undefined, {
        errors: error.errors.map(
          (problem) => callersTool(problem, ownTools.length, clientTools.length) ?? fromAgent([problem], agentFields)[0]!,
        ),
      });
    throw error;
  }
  // The definition's agent tools were live when it was stored; one archived since is named here.
  const stale = await agentToolProblems(actor.env, actor.principal.tenantId, prepared.tools);
  if (stale.length > 0) throw new ApiError("validation_failed", undefined, { errors: fromAgent(stale, agentFields) });
  const canary = resolved.canary ? { alias: resolved.canary.alias, canary: resolved.canary.arm } : {};
  return {
    body: merged,
    prepared,
    agent: { id: resolved.agentId, version: resolved.version, ...canary },
    agentName: resolved.definition.name,
  };
}

/**
 * An end user adds no tool to the tenant's agent: a tool's description steers the model, and what
 * the model writes into its arguments goes back to the end user (REST refuses `tools` beside
 * `agent` for the same reason). A tool it declares under the name of one of the agent's own client
 * tools is the page that runs it saying so: the definition's is kept, the declared one dropped.
 */
function endUsersTools(
  declared: Extract<ToolSpec, { type: "client" }>[],
  own: readonly ToolSpec[],
): Extract<ToolSpec, { type: "client" }>[] {
  const runs = new Set(own.filter((tool) => tool.type === "client").map((tool) => tool.name));
  const errors = declared.flatMap((tool, index) =>
    runs.has(tool.name)
      ? []
      : [
          {
            path: `body.tools.${index}`,
            message: "An end user cannot add tools to the agent: only the client tools its definition declares run here.",
          },
        ],
  );
  if (errors.length > 0) throw new ApiError("validation_failed", undefined, { errors });
  return [];
}

/**
 * A problem at one of the tools after the definition's `count` is the caller's: at `body.tools.<its own index>`.
 * One of the whole list (a name used twice, too many) is the caller's too when it added tools: the definition's
 * own list passed alone. Null otherwise.
 */
function callersTool(error: FieldError, count: number, added: number): FieldError | null {
  if (added > 0 && error.path === "body.tools")
    return { ...error, message: `The agent's tools (the first ${count}), then yours: ${error.message}` };
  const [root, field, index, ...rest] = error.path.split(".");
  if (root !== "body" || field !== "tools" || index === undefined || !/^\d+$/.test(index) || Number(index) < count) return null;
  return { ...error, path: ["body", "tools", String(Number(index) - count), ...rest].join(".") };
}

/** Problems at fields the definition gave move to `body.agent`, naming the field in the message. */
function agentErrors(errors: readonly FieldError[], fields: ReadonlySet<string>, version: number): FieldError[] {
  return errors.map((error) => {
    const [root, field, ...rest] = error.path.split(".");
    if (root !== "body" || field === undefined || !fields.has(field)) return error;
    return { path: "body.agent", message: `The agent's version ${version}, at ${[field, ...rest].join(".")}: ${error.message}` };
  });
}
