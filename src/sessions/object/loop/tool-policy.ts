/**
 * The tool policy's judgement of the calls of one model response, made once, before they are
 * saved: `initialStatus` (model-step.ts) turns each decision into the call's first status. The
 * tenant's policy is held by each isolate as a copy with its version. The tenant index tells every
 * active session of a change before the change's request is answered (`policyChanged`, from
 * src/tenants/policy-push.ts), and answers every admission and report with the version in force,
 * so a run's tool steps ask the index nothing in the common case: a copy is asked for again when
 * the index names another version, or when nothing confirmed it for `POLICY_FRESH_MS` (a push that
 * could not be delivered).
 */
import { tenantIndexStub } from "../../../objects";
import { loadCedar } from "../../../policy/load";
import { principalOf } from "../../../policy/request";
import { defaultTrust } from "../../../policy/trust";
import type { PolicyDecision } from "../../../policy/schema";
import type { ToolCallPolicy, ToolUseBlock } from "../../../session-config/types";
import { log } from "../../../log";
import type { StepScope } from "../engine/unit-scope";
import { runTainted } from "../store/state";

/** Tenants whose policy text an isolate keeps: enough for the tenants one isolate's sessions belong to. */
const CACHED_TENANTS = 256;
/**
 * How long an isolate judges by a copy nothing confirmed (a read, a report's answer or a push of
 * the same version) before it asks the tenant index again. A change reaches running sessions by
 * push at once; this bounds only a session the index could not reach.
 */
export const POLICY_FRESH_MS = 60_000;
interface PolicyCopy {
  version: number;
  cedar: string | null;
  /** When the index last confirmed this version (epoch ms; -Infinity: stale). */
  readAt: number;
}
const tenantPolicies = new Map<string, PolicyCopy>();
/** The newest version the index named for each tenant (versions only grow): an answer of an older one is stale. */
const newestNamed = new Map<string, number>();
/** A read under way for each tenant, which every judgement of the tenant in this isolate waits for. */
const reading = new Map<string, Promise<string | null>>();

/**
 * A version the tenant index named, current at some time after `sentAt`: in the answer to a report
 * or admission (`ReportAck.policy_version`), sent then, or in its word of a change (`policyChanged`).
 * The copy held is known current as of then when it has that version, and with no copy held, a
 * tenant with no policy ever set (version 0) needs no text. A newer version makes the copy stale (the
 * next judgement asks for the text); an older one than the newest named (an answer a push overtook,
 * or one push overtaking another) says nothing.
 */
export function heardPolicyVersion(tenantId: string, version: number, sentAt: number): void {
  const newest = newestNamed.get(tenantId) ?? -1;
  if (version < newest) return;
  if (version > newest) keep(newestNamed, tenantId, version);
  const held = tenantPolicies.get(tenantId);
  if (held?.version === version) held.readAt = Math.max(held.readAt, sentAt);
  else if (held) held.readAt = Number.NEGATIVE_INFINITY;
  else if (version === 0) keep(tenantPolicies, tenantId, { version, cedar: null, readAt: sentAt });
}

/** Sets a tenant's entry as the newest, dropping the oldest past `CACHED_TENANTS`. */
function keep<V>(map: Map<string, V>, tenantId: string, value: V): void {
  map.delete(tenantId);
  if (map.size >= CACHED_TENANTS) map.delete(map.keys().next().value!);
  map.set(tenantId, value);
}

/** The tenant's current policy text (null: none), by way of this isolate's copy; one read at a time per tenant. */
async function tenantPolicy(scope: Pick<StepScope, "env">, tenantId: string): Promise<string | null> {
  const held = tenantPolicies.get(tenantId);
  if (held && Date.now() - held.readAt < POLICY_FRESH_MS) return held.cedar;
  let pending = reading.get(tenantId);
  if (!pending) {
    pending = readPolicy(scope, tenantId).finally(() => reading.delete(tenantId));
    reading.set(tenantId, pending);
  }
  return pending;
}

/** Asks the index; a change named while the read was under way is newer than its answer, so it asks once more. */
async function readPolicy(scope: Pick<StepScope, "env">, tenantId: string, again = true): Promise<string | null> {
  const held = tenantPolicies.get(tenantId);
  const sentAt = Date.now();
  let answer: Awaited<ReturnType<ReturnType<typeof tenantIndexStub>["currentPolicy"]>>;
  try {
    answer = await tenantIndexStub(scope.env, tenantId).currentPolicy(tenantId, held?.version ?? null);
  } catch (err) {
    // The copy held, stale as it is, is the tenant's policy of a little while ago; without one the
    // unit fails and is tried again with backoff (units.ts): neither denies nor allows unjudged.
    log("warn", "tool_policy_unreadable", { tenant_id: tenantId, held: held !== undefined, error: String(err) });
    if (held) return held.cedar;
    throw err;
  }
  const cedar = answer.cedar === undefined ? (held?.cedar ?? null) : answer.cedar;
  if (answer.version < (newestNamed.get(tenantId) ?? -1)) return again ? readPolicy(scope, tenantId, false) : cedar;
  keep(newestNamed, tenantId, answer.version);
  const current = tenantPolicies.get(tenantId);
  if (!current || current.version <= answer.version) keep(tenantPolicies, tenantId, { version: answer.version, cedar, readAt: sentAt });
  return cedar;
}

export const POLICY_UNREADABLE = "the tool policy could not be read or evaluated";

/** The decision on each call by its id; empty when no policy applies (every call goes on as before). */
export async function judgeCalls(
  scope: Pick<StepScope, "env" | "requireSession" | "toolbox" | "store">,
  uses: readonly ToolUseBlock[],
): Promise<Map<string, ToolCallPolicy>> {
  const decisions = new Map<string, ToolCallPolicy>();
  if (uses.length === 0) return decisions;
  const session = scope.requireSession();
  const tenant = await tenantPolicy(scope, session.tenant_id);
  const agent = session.policy?.cedar ?? null;
  if (tenant === null && agent === null) return decisions;
  const { judge } = await loadCedar();
  const tainted = runTainted(scope.store.run());
  for (const use of uses) {
    const tool = scope.toolbox().get(use.name);
    if (!tool) continue; // an unknown tool's call ends as an error without running
    const decision: PolicyDecision = judgeSafely(() =>
      judge(
        { tenant, agent },
        {
          principal: principalOf(session.created_by, session.api_key_id),
          tool: { name: use.name, type: tool.kind, trust: tool.trust ?? defaultTrust(tool.kind, use.name) },
          input: use.input,
          tainted,
          agent: session.agent ?? null,
          session_metadata: session.metadata,
        },
      ),
    );
    decisions.set(use.id, { decision: decision.decision, policy_ids: decision.policy_ids });
  }
  return decisions;
}

/** A policy stored before a change of the engine that no longer compiles denies, as an unreadable one does. */
function judgeSafely(judge: () => PolicyDecision): PolicyDecision {
  try {
    return judge();
  } catch (err) {
    log("warn", "tool_policy_failed", { error: err instanceof Error ? err.message : String(err) });
    return { decision: "deny", policy_ids: [], errors: [] };
  }
}

/** The error a denied call ends with: what the model reads, naming the policy. */
export function deniedOutput(policy: ToolCallPolicy): string {
  const why = policy.policy_ids.length > 0 ? policy.policy_ids.join(", ") : POLICY_UNREADABLE;
  return `policy_denied: the tool policy denied this call (${why})`;
}
