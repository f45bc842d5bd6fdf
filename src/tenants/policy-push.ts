/**
 * The tenant index telling its active sessions that the tool policy changed, so their tool steps
 * need not ask for it (src/sessions/object/loop/tool-policy.ts): each session object hears the new
 * version before the change's request is answered, and its next judgement reads the new text.
 */
import { sessionStub } from "../objects";
import { describeError, log } from "../log";
import { eachSession } from "./each-session";

/**
 * Tells each session, trying once more a session object that failed (it may have been restarting);
 * answers how many could not be told. A session not told judges by its copy until its next
 * report's answer names the version, or `POLICY_FRESH_MS` at most.
 */
export async function tellPolicyChanged(
  env: Cloudflare.Env,
  tenantId: string,
  sessionIds: readonly string[],
  version: number,
): Promise<number> {
  let untold = 0;
  await eachSession(sessionIds, async (sessionId) => {
    const tell = async (): Promise<void> => void (await sessionStub(env, tenantId, sessionId).policyChanged(version));
    try {
      await tell().catch(tell);
    } catch (error) {
      untold++;
      log("warn", "policy_change_untold", { tenant_id: tenantId, session_id: sessionId, version, error: describeError(error).message });
    }
  });
  return untold;
}
