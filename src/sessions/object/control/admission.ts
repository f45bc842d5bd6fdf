/**
 * A new session's run admission, spoken from here alone: the session is written `running` with its
 * admission owed, then the tenant index is asked once (`admitSession`: budgets, run slot and the
 * first report's row in one call). Admitted, the report is delivered and nothing more is owed;
 * refused, the session erases itself and answers the refusal.
 *
 * A crash between the write and the answer is settled by the next wake, set with the write: the
 * index is asked again (a session it already lists was admitted, so asking twice is safe); refused,
 * the session erases itself. An index that cannot be reached queues the run as a child's is queued
 * (`claimQueuedSlot` takes it from there), so no run goes on without a slot and no row without a session.
 */
import { log } from "../../../log";
import { requireLive, stillLive } from "../engine/gone";
import type { AdmissionLimits, SessionAdmission } from "../../../tenants/types";
import type { NotAdmitted } from "../rpc";
import type { ControlHost } from "./host";

type AdmissionHost = Pick<ControlHost, "ctx" | "store" | "reporter" | "transaction" | "updateRun" | "eraseAll">;

/** The admission still owed: the limits to ask it with. Stored only between the write and the index's answer. */
const OWED_KEY = "admission_owed";
/** The wake that settles an admission a crash left unanswered; the gateway's own answer comes long before. */
export const ADMISSION_SETTLE_MS = 30_000;

/**
 * Notes the admission owed, in the synchronous stretch that writes the session (so both are kept,
 * or neither), with the wake that settles it after a crash; the promise is the alarm's write.
 */
export function oweAdmission(host: Pick<ControlHost, "ctx">, limits: AdmissionLimits): Promise<void> {
  host.ctx.storage.kv.put(OWED_KEY, limits);
  return host.ctx.storage.setAlarm(Date.now() + ADMISSION_SETTLE_MS);
}

export function owesAdmission(host: Pick<ControlHost, "ctx">): boolean {
  return host.ctx.storage.kv.get(OWED_KEY) !== undefined;
}

/**
 * Asks the index for the owed admission, once. Null: admitted (or nothing was owed), or queued
 * when the index could not be reached; else the refusal, the session erased.
 */
export async function settleAdmission(host: AdmissionHost): Promise<NotAdmitted | null> {
  const limits = host.ctx.storage.kv.get<AdmissionLimits>(OWED_KEY);
  if (limits === undefined) return null;
  let answer: SessionAdmission;
  try {
    // Erased meanwhile (`SessionGone`, here or in the catch): nothing is left to admit.
    answer = await stillLive(host.store, host.reporter.admit(limits));
  } catch (error) {
    requireLive(host.store);
    const session = host.store.requireSession();
    log("warn", "admission_unanswered", { tenant_id: session.tenant_id, session_id: session.id, error: String(error) });
    host.transaction(() => {
      host.ctx.storage.kv.delete(OWED_KEY);
      if (host.store.run().status === "running") host.updateRun({ status: "queued" });
    });
    return null;
  }
  if (answer.ok) {
    host.ctx.storage.kv.delete(OWED_KEY);
    return null;
  }
  await host.eraseAll();
  return { ok: false, reason: "not_admitted", refusal: answer };
}
