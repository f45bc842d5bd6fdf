/**
 * Forking a session, for the route: a new session with the source's settings (its agent version
 * included) and a copy of its messages up to `at_seq`, made by the caller, who then owns it.
 * The source is read, never changed. With `input` the fork's first run starts at once, so "edit
 * message N and run again" is a fork at the seq before N with the edited text.
 */
import { shardFor } from "../shared/shard-layout";
import { AgentClient } from "../agents/client";
import { capLimits } from "../limits";
import { ApiError } from "../problems";
import { isModelAllowed } from "../models/catalog";
import { requireMemoryScopes } from "./prepare";
import type { Actor } from "./actor";
import { loadOwnedSession } from "./access";
import { SessionClient } from "./client";
import { newSessionId } from "../session-config/ids";
import { settingsOptions } from "./run-options";
import { resolveRunInput } from "./images";
import type { ForkSessionRequest } from "../session-config/request-schemas";
import { admitRun, startWithSlot } from "./run-admission";
import type { Session, SessionInit } from "../session-config/types";

/**
 * A fork is a new session: what a creation would refuse now is refused here too, though the
 * source was made when it was allowed. Its model must still be one the tenant allows; its agent
 * must not be archived (the version it pinned is read, so an archived agent is a 409); a memory
 * grant the caller gave (not an agent's) needs the caller's memory scopes. Returns the name in
 * the pinned version's definition (kept with the fork, a source made before names were kept
 * included), or null without an agent.
 */
async function checkForkSettings(actor: Actor, init: SessionInit): Promise<string | null> {
  if (!isModelAllowed(actor.config.models, actor.models, init.model)) {
    throw new ApiError("validation_failed", undefined, {
      errors: [{ path: "body", message: `The source's model "${init.model}" is no longer available to this tenant.` }],
    });
  }
  if (init.agent) {
    const resolved = await new AgentClient(actor.env, actor.principal.tenantId).resolve({
      agentId: init.agent.id,
      selector: { kind: "version", version: init.agent.version },
    });
    return resolved.definition.name;
  }
  if (init.memory) requireMemoryScopes(actor, init.memory);
  return null;
}

export async function forkSession(actor: Actor, sourceId: string, body: ForkSessionRequest, id: string = newSessionId()): Promise<Session> {
  const { env, principal, config } = actor;
  const { client: source } = await loadOwnedSession(env, principal, sourceId);
  const copy = await source.forkCopy(body.at_seq ?? null);
  const { created_at: _createdAt, ...settings } = copy.session;
  const init: SessionInit = {
    ...settings,
    id,
    created_by: principal.subject,
    api_key_id: principal.keyId ?? null,
    // The tenant may have lowered its limits since the source was made.
    limits: capLimits(settings.limits, actor.limits),
    metadata: body.metadata !== undefined ? body.metadata : settings.metadata,
    forked_from: { session_id: sourceId, seq: copy.at_seq },
    // A fork is nobody's child: its own agent calls start its own children.
    parent: null,
    depth: 0,
    // Placed as a new session is, not where its source is.
    shard: actor.shards ? shardFor(id, actor.shards) : null,
  };
  init.agent_name = await checkForkSettings(actor, init);
  const input =
    body.input === undefined
      ? null
      : await resolveRunInput(body.input, {
          maxImageBytes: init.limits.max_image_bytes,
          model: init.model,
          catalog: config.models,
          allowPrivateUrls: config.allowPrivateUrls,
        });
  const fork = new SessionClient(env, principal.tenantId, id);
  // A fork's first run is traced as a created session's is.
  const create = () => fork.createFork(init, copy.rows, input, settingsOptions(actor.settings, actor.traceparent));
  if (input === null) return create();
  // A fork starts with no usage of its own.
  const home = init.shard ?? null;
  await admitRun(env, principal, id, actor.limits, { maxTokens: init.limits.max_tokens_per_session, usedTokens: 0 }, Date.now(), home);
  return startWithSlot(env, principal.tenantId, id, create, home);
}
