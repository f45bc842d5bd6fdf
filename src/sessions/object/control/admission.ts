/**
 * A new session's run admission, spoken from here alone: the session is written `running` with its
 * admission owed, then the tenant index is asked once (`admitSession`: budgets, run slot and the
 * first report's row in one call). Admitted, the report is delivered and nothing more is owed;
 * refused, the session erases itself and answers the refusal.
 *
 * Until the index answered, the session makes no other report (the admission carries its row) and
 * runs no unit. A crash between the write and the answer is settled by the wake set with the
 * write: the index is asked again (a session it lists was admitted, since nothing else lists it
 * meanwhile); refused, the session erases itself. An index that does not answer leaves the
 * admission owed: a create answers the error as a failed admission always did, and the wake asks
 * again `CREATE_ADMISSION_RETRY_MS` later (an ask under way is never doubled by the wake); so no
 * run goes on unadmitted and no row lists no session.
 */
import { CREATE_ADMISSION_CRASH_WAKE_MS, CREATE_ADMISSION_RETRY_MS } from "../../../limits";
import { stillLive } from "../engine/gone";
import type { AdmissionLimits, SessionAdmission } from "../../../tenants/types";
import type { NotAdmitted } from "../rpc";
import type { ControlHost } from "./host";

type AdmissionHost = Pick<ControlHost, "store" | "reporter" | "eraseAll">;

/**
 * Notes the admission owed, in the synchronous stretch that writes the session (so both are kept,
 * or neither), with the wake that settles it after a crash; the promise is the alarm's write.
 */
export function oweAdmission(host: Pick<ControlHost, "ctx" | "store">, limits: AdmissionLimits): Promise<void> {
  host.store.oweAdmission(limits);
  return host.ctx.storage.setAlarm(Date.now() + CREATE_ADMISSION_CRASH_WAKE_MS);
}

export function owesAdmission(host: Pick<ControlHost, "store">): boolean {
  return host.store.admissionOwed() !== undefined;
}

/**
 * Asks the index for the owed admission, once. Null: admitted (or nothing was owed); else the
 * refusal, the session erased. A failed ask goes on up with the admission still owed.
 */
export async function settleAdmission(host: AdmissionHost): Promise<NotAdmitted | null> {
  const limits = host.store.admissionOwed<AdmissionLimits>();
  if (limits === undefined) return null;
  host.store.admissionAskAt = Date.now() + CREATE_ADMISSION_RETRY_MS;
  // Erased meanwhile (`SessionGone`): nothing is left to admit.
  const answer: SessionAdmission = await stillLive(host.store, host.reporter.admit(limits));
  if (answer.ok) {
    host.store.admissionSettled();
    return null;
  }
  await host.eraseAll();
  return { ok: false, reason: "not_admitted", refusal: answer };
}
