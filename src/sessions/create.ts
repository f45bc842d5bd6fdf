/**
 * Creating a session, for any actor: the route and a schedule's firing. Limits and tools are
 * checked before the session object exists, so a refused request leaves nothing; with `input` the first
 * run starts at once, once the tenant's index admitted it (asked by the session object, which erases itself when refused).
 */
import { shardFor } from "../shared/shard-layout";
import type { Principal } from "../auth/principal";
import type { Actor } from "./actor";
import type { Limits } from "../limits";
import { SessionClient } from "./client";
import { newSessionId } from "../session-config/ids";
import { resolveRunInput } from "./images";
import type { CreateSessionRequest } from "../session-config/request-schemas";
import { planSession } from "./plan";
import { settingsOptions } from "./run-options";
import type { AgentPin, ContextSettings, Session, SessionInit, ToolSpec } from "../session-config/types";
import type { MemoryGrant } from "../session-config/memory-namespace";

/** Pure: what the session object is created with; `model` was chosen by `chooseModel`, every other absent field gets its documented default. */
export function buildSessionInit(
  id: string,
  principal: Principal,
  body: CreateSessionRequest,
  limits: Limits,
  model: string,
  agent: AgentPin | null = null,
  memory: MemoryGrant | null = null,
  agentName: string | null = null,
): SessionInit {
  return {
    id,
    agent,
    agent_name: agent ? agentName : null,
    tenant_id: principal.tenantId,
    created_by: principal.subject,
    api_key_id: principal.keyId ?? null,
    model,
    system: body.system ?? null,
    tools: body.tools ?? [],
    limits,
    context: contextSettings(body.context),
    reasoning: body.reasoning ?? null,
    output_schema: body.output_schema ?? null,
    metadata: body.metadata ?? null,
    notify_url: body.notify_url ?? null,
    memory,
    policy: body.policy ?? null,
  };
}

/** The context settings as stored: the strategy always named; absent or null is `auto`. */
export function contextSettings(context: CreateSessionRequest["context"]): ContextSettings {
  if (!context) return { strategy: "auto" };
  return {
    strategy: context.strategy,
    ...(context.max_input_tokens !== undefined ? { max_input_tokens: context.max_input_tokens } : {}),
    ...(context.last_messages !== undefined ? { last_messages: context.last_messages } : {}),
  };
}

/**
 * Creates the session `id` (a fresh one by default) and, with `input`, starts its run once the
 * tenant's index admitted it (a 429 or 403 otherwise). A caller that chooses the id gets a 409 when it is taken.
 * `clientTools`: tools the caller itself runs, added to an agent's (a protocol that declares them per thread, AG-UI).
 */
export async function createSession(
  actor: Actor,
  request: CreateSessionRequest,
  id: string = newSessionId(),
  clientTools: Extract<ToolSpec, { type: "client" }>[] = [],
): Promise<Session> {
  const { env, principal, config } = actor;
  const { body, prepared, agent: pin, agentName } = await planSession(actor, request, clientTools, id);
  // Images last: a request that is wrong anyway fetches nothing.
  const input =
    body.input === undefined
      ? null
      : await resolveRunInput(body.input, {
          maxImageBytes: prepared.limits.max_image_bytes,
          model: prepared.model,
          catalog: config.models,
          allowPrivateUrls: config.allowPrivateUrls,
        });
  const init = {
    ...buildSessionInit(
      id,
      principal,
      { ...body, tools: prepared.tools, notify_url: prepared.notify_url },
      prepared.limits,
      prepared.model,
      pin,
      prepared.memory,
      agentName,
    ),
    shard: actor.shards ? shardFor(id, actor.shards) : null,
  };
  const client = new SessionClient(env, principal.tenantId, id);
  // With input, the session object asks the index for the run's admission, in the call that lists it.
  return client.create(init, input, settingsOptions(actor.settings, actor.traceparent), input === null ? null : actor.limits);
}
