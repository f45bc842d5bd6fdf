/**
 * Starting the child session of an `agent` tool call, asked by the parent's tool step: the
 * agent resolved now, its definition checked for the tenant as a create request would be, and
 * the child created under the id derived from the call (`childSessionId`), so asking again after
 * a crash names the same child and never makes a second. The child acts for the parent's
 * `created_by`; its run starts at once, `queued` when the tenant has no free run slot. On a
 * tenant that exports traces, the child's run is traced as a child of the call's `execute_tool`
 * span, in the parent's trace; the child keeps that in its run state from its creation on.
 */
import { shardFor, type ShardRef } from "../shared/shard-layout";
import { loadConfig } from "../config";
import type { Env } from "../env";
import { tenantIndexStub } from "../objects";
import { ApiError } from "../problems";
import type { Actor } from "./actor";
import { SessionClient } from "./client";
import { buildSessionInit } from "./create";
import { planSession } from "./plan";
import { settingsOptions } from "./run-options";
import { capToShare, type ChildBudget } from "./object/subagents/budget-share";
import type { AgentToolSpec, RunOptions, Session, SessionInit } from "../session-config/types";

export type ChildStart = { ok: true; session: Session } | { ok: false; error: string };

export interface ChildOf {
  tenantId: string;
  sessionId: string;
  createdBy: string;
  /** The API key the parent was created through, which its children's usage counts under too; null for none. */
  keyId?: string | null;
  toolCallId: string;
  /** The parent's depth; the child's is one more. */
  depth: number;
  /** The tree's root, which keeps its budget: the parent's own root, or the parent when it is the root ('' for none). */
  rootSessionId: string;
  /** The `traceparent` of the call's `execute_tool` span; absent when the parent's run is not traced. */
  traceparent?: string;
  /** The child's share of the parent's remaining session budgets (object/subagents/budget-share.ts); absent: none drawn. */
  budget?: ChildBudget;
  /** The parent's run is tainted: the child's first run starts tainted, its task may carry what the parent read. */
  tainted?: boolean;
  /** The parent's shard: a child is placed in the parent's generation (on the index with it), by its own id as every session is. */
  shard?: ShardRef | null;
}

/** What the child is created with, and the options of its first run. */
export interface ChildPlan {
  init: SessionInit;
  options: RunOptions;
}

/**
 * The child's settings as a create request would make them. A refusal a caller could have been
 * told of (an archived agent, a model the tenant no longer allows) is an error result for the
 * parent's model; anything else (an unreachable store) is thrown, for the unit to try again.
 */
export async function planChild(
  env: Env,
  parent: ChildOf,
  spec: AgentToolSpec,
  childId: string,
  input: string,
): Promise<({ ok: true } & ChildPlan) | { ok: false; error: string }> {
  const index = tenantIndexStub(env, parent.tenantId);
  const [config, settings] = await Promise.all([index.getConfig(parent.tenantId), index.getSettings(parent.tenantId)]);
  if (config.suspended) return { ok: false, error: "the tenant is suspended" };
  const actor: Actor = {
    env,
    config: loadConfig(env),
    // The child acts for whoever the parent acts for; it reads and writes sessions only.
    principal: {
      tenantId: parent.tenantId,
      subject: parent.createdBy,
      scopes: ["sessions:read", "sessions:write"],
      via: "jwt",
      ...(parent.keyId ? { keyId: parent.keyId } : {}),
    },
    limits: config.effective_limits,
    settings,
    models: config.models,
  };
  try {
    const { body, prepared, agent, agentName } = await planSession(actor, { agent: spec.agent, input });
    const init = buildSessionInit(
      childId,
      actor.principal,
      { ...body, tools: prepared.tools, notify_url: prepared.notify_url },
      prepared.limits,
      prepared.model,
      agent,
      prepared.memory,
      agentName,
    );
    // Traced and redacted by the tenant's own settings, as any run; in the parent's trace when the parent's run is traced.
    const options = { ...settingsOptions(settings, parent.traceparent), ...(parent.tainted ? { tainted: true } : {}) };
    return {
      ok: true,
      init: {
        ...init,
        // A child draws on what its parent has left: its own session budgets are at most its share.
        limits: parent.budget ? capToShare(init.limits, parent.budget) : init.limits,
        parent: { session_id: parent.sessionId, tool_call_id: parent.toolCallId },
        depth: parent.depth + 1,
        ...(parent.rootSessionId ? { root_session_id: parent.rootSessionId } : {}),
        shard: parent.shard ? shardFor(childId, parent.shard) : null,
      },
      options,
    };
  } catch (error) {
    if (error instanceof ApiError && error.status < 500)
      return { ok: false, error: `the agent ${spec.agent} could not be started: ${refusalText(error)}` };
    throw error;
  }
}

/** Creates the child (or finds it, when an earlier try created it) with its first run going or queued. */
export async function startChild(env: Env, tenantId: string, plan: ChildPlan, input: string): Promise<Session> {
  return new SessionClient(env, tenantId, plan.init.id).createChild(plan.init, input, plan.options);
}

function refusalText(error: ApiError): string {
  const fields = (error.errors ?? []).map((problem) => `${problem.path}: ${problem.message}`);
  return fields.length > 0 ? fields.join("; ") : error.detail;
}
