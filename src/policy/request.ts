/**
 * Pure: a call to judge as Cedar's request (principal, action, resource, context and the
 * entities they name), and Cedar's answer as the platform's decision.
 */
import { API_KEY_SUBJECT_PREFIX, endUserOf } from "../auth/principal";
import type { PolicyDecision, PolicyRequest, PrincipalKind } from "./schema";

/** What the engine knows of each policy of a compiled set, by its id. */
export interface PolicyMeta {
  effect: "permit" | "forbid";
  requireApproval: boolean;
}

/** The permit every set ends with: a call no policy forbids runs, as it did before policies existed. */
export const DEFAULT_PERMIT_ID = "platform.default";
export const DEFAULT_PERMIT = "permit(principal, action, resource);";

type EntityJson = { uid: { type: string; id: string }; attrs: Record<string, unknown>; parents: []; tags?: Record<string, string> };

export interface CedarRequest {
  principal: { type: string; id: string };
  action: { type: string; id: string };
  resource: { type: string; id: string };
  context: Record<string, unknown>;
  entities: EntityJson[];
}

/** The request Cedar judges. `User::"<created_by>"`, `Action::"call_tool"`, `Tool::"<name>"`. */
export function cedarRequest(request: PolicyRequest): CedarRequest {
  const { principal, tool } = request;
  const user = { type: "User", id: principal.id };
  const resource = { type: "Tool", id: tool.name };
  const input = { type: "Input", id: "input" };
  const metadata = { type: "Metadata", id: "session_metadata" };
  return {
    principal: user,
    action: { type: "Action", id: "call_tool" },
    resource,
    context: {
      input: { __entity: input },
      tainted: request.tainted,
      session_metadata: { __entity: metadata },
      ...(request.agent ? { agent_id: request.agent.id, agent_version: request.agent.version } : {}),
    },
    entities: [
      {
        uid: user,
        attrs: { kind: principal.kind, subject: principal.subject, ...(principal.key_id ? { key_id: principal.key_id } : {}) },
        parents: [],
      },
      { uid: resource, attrs: { name: tool.name, type: tool.type, trust: tool.trust }, parents: [] },
      { uid: input, attrs: {}, parents: [], tags: inputTags(request.input) },
      { uid: metadata, attrs: {}, parents: [], tags: { ...(request.session_metadata ?? {}) } },
    ],
  };
}

/** Each top-level field of an object input: a string as is, any other value as its JSON text. */
export function inputTags(input: unknown): Record<string, string> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return {};
  return Object.fromEntries(Object.entries(input).map(([key, value]) => [key, typeof value === "string" ? value : JSON.stringify(value)]));
}

/** The principal a session's `created_by` names: `key:<id>` an API key, `end_user:<subject>` an end user, else a JWT's subject. */
export function principalOf(createdBy: string, keyId: string | null | undefined): PolicyRequest["principal"] {
  // The subject prefixes are the auth layer's (`endUserOf`, `API_KEY_SUBJECT_PREFIX`): one rule for what a subject names.
  const endUser = endUserOf(createdBy);
  const keyOwner = createdBy.startsWith(API_KEY_SUBJECT_PREFIX) ? createdBy.slice(API_KEY_SUBJECT_PREFIX.length) : null;
  const kind: PrincipalKind = endUser !== null ? "end_user" : keyOwner !== null ? "api_key" : "user";
  const subject = endUser ?? keyOwner ?? createdBy;
  return { id: createdBy, kind, subject, ...(keyId ? { key_id: keyId } : {}) };
}

export interface CedarAnswer {
  decision: "allow" | "deny";
  reason: string[];
  errors: { policyId: string; message: string }[];
}

/**
 * Cedar's answer as the platform's decision. A forbid that could not be evaluated denies (fail
 * closed: an error must not open what the policy closes); a permit annotated
 * `@require_approval` among those that allowed the call, or that could not be evaluated, holds it.
 */
export function decisionOf(answer: CedarAnswer, meta: ReadonlyMap<string, PolicyMeta>): PolicyDecision {
  const errors = answer.errors.map((e) => `${e.policyId}: ${e.message}`);
  const failedForbids = answer.errors.map((e) => e.policyId).filter((id) => meta.get(id)?.effect === "forbid");
  if (answer.decision === "deny" || failedForbids.length > 0) {
    const deciding = answer.decision === "deny" ? answer.reason : [];
    return { decision: "deny", policy_ids: [...new Set([...deciding, ...failedForbids])].sort(), errors };
  }
  const permits = answer.reason.filter((id) => id !== DEFAULT_PERMIT_ID).sort();
  // A hold that could not be evaluated holds: skipping it would let the default permit run the call.
  const failedHolds = answer.errors.map((e) => e.policyId).filter((id) => meta.get(id)?.requireApproval === true);
  const holding = [...new Set([...permits.filter((id) => meta.get(id)?.requireApproval === true), ...failedHolds])].sort();
  return holding.length > 0
    ? { decision: "require_approval", policy_ids: holding, errors }
    : { decision: "allow", policy_ids: permits, errors };
}
