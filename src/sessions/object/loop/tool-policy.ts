/**
 * The tool policy's judgement of the calls of one model response, made once, before they are
 * saved: `initialStatus` (model-step.ts) turns each decision into the call's first status. The
 * tenant's policy is asked of its index when a response calls tools and this isolate's copy is
 * older than `POLICY_FRESH_MS` (with the version held, so an unchanged text is not sent again): a
 * change applies within seconds, in runs already going too, which a copy taken when the run was
 * admitted would not do.
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
 * How long an isolate judges by the copy it read before it asks the tenant index again: a run of
 * many tool steps asks once per interval, not once per step (the index is the tenant's one hot
 * object, `test/sessions/index-load.test.ts`), and a change of the policy applies within it.
 */
export const POLICY_FRESH_MS = 5_000;
const tenantPolicies = new Map<string, { version: number; cedar: string | null; readAt: number }>();

/**
 * A version the index answered a report with (`ReportAck.policy_version`), current at some time
 * after `sentAt`, the report's sending: the copy held is known current as of then when it has that
 * version, and with no copy held, a tenant with no policy ever set (version 0) needs no text. So a
 * run's tool steps ask the index nothing in the `POLICY_FRESH_MS` after the admission or a report
 * (reports of a session no daily budget counts come minutes apart, so most reads remain). Any other version
 * leaves the copy as it is: the next judgement asks for the text.
 */
export function heardPolicyVersion(tenantId: string, version: number, sentAt: number): void {
  const held = tenantPolicies.get(tenantId);
  if (held?.version === version) held.readAt = Math.max(held.readAt, sentAt);
  else if (!held && version === 0) remember(tenantId, { version, cedar: null, readAt: sentAt });
}

function remember(tenantId: string, copy: { version: number; cedar: string | null; readAt: number }): void {
  tenantPolicies.delete(tenantId);
  if (tenantPolicies.size >= CACHED_TENANTS) tenantPolicies.delete(tenantPolicies.keys().next().value!);
  tenantPolicies.set(tenantId, copy);
}

/** The tenant's current policy text (null: none), by way of this isolate's copy. */
async function tenantPolicy(scope: Pick<StepScope, "env">, tenantId: string): Promise<string | null> {
  const held = tenantPolicies.get(tenantId);
  const now = Date.now();
  if (held && now - held.readAt < POLICY_FRESH_MS) return held.cedar;
  let answer: Awaited<ReturnType<ReturnType<typeof tenantIndexStub>["currentPolicy"]>>;
  try {
    answer = await tenantIndexStub(scope.env, tenantId).currentPolicy(tenantId, held?.version ?? null);
  } catch (err) {
    // The copy held, stale as it is, is the tenant's policy of a few seconds ago; without one the
    // unit fails and is tried again with backoff (units.ts): neither denies nor allows unjudged.
    log("warn", "tool_policy_unreadable", { tenant_id: tenantId, held: held !== undefined, error: String(err) });
    if (held) return held.cedar;
    throw err;
  }
  const cedar = answer.cedar === undefined ? (held?.cedar ?? null) : answer.cedar;
  remember(tenantId, { version: answer.version, cedar, readAt: now });
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
