/**
 * The session's run slot at its tenant index, claimed only one way: claim, check again after the
 * await, give back what is not used (`claimChecked`); the claim and release alone are private.
 */
import { tenantIndexStub } from "../../../objects";
import { log } from "../../../log";
import type { SessionStore } from "../store/store";

/** What asking for a run slot gave: one, none free (queue), or a suspended tenant (stop). */
export type SlotClaim = "ok" | "busy" | "suspended";

/** What `claimChecked` gave: the claim, or why the change no longer stands (`gone`: erased). */
export type CheckedClaim<F> = { ok: true; slot: SlotClaim } | { ok: false; refusal: F | "gone" };

export class RunSlots {
  /** Whose run slot the last claim asked for (this object is always one session). */
  #owner: { tenantId: string; sessionId: string } | null = null;

  constructor(
    private readonly store: SessionStore,
    private readonly env: Cloudflare.Env,
  ) {}

  /**
   * Claims a slot when `needed` (else counts as "ok"), then, after the await, asks `recheck`
   * whether the change still stands; a refusal gives back a slot claimed for it. The refusal is
   * taken before the release's await, after which the session may be gone.
   */
  async claimChecked<F>(needed: boolean, recheck: () => F | null): Promise<CheckedClaim<F>> {
    const slot = needed ? await this.#claim() : "ok";
    const refusal = this.store.exists() ? recheck() : "gone";
    if (refusal === null) return { ok: true, slot };
    if (needed && slot === "ok") await this.#release();
    return { ok: false, refusal };
  }

  /**
   * Asks the tenant index for a run slot, for a session that held none (it waited, was paused or
   * queued). An unreachable index counts as busy: the session queues and asks again later.
   */
  async #claim(): Promise<SlotClaim> {
    const session = this.store.requireSession();
    this.#owner = { tenantId: session.tenant_id, sessionId: session.id };
    try {
      const slot = await tenantIndexStub(this.env, session.tenant_id).acquireRun(
        session.tenant_id,
        session.id,
        session.limits.max_concurrent_runs,
        Date.now(),
      );
      return slot.ok ? "ok" : slot.code;
    } catch (error) {
      log("warn", "slot_claim_failed", { tenant_id: session.tenant_id, session_id: session.id, error: String(error) });
      return "busy";
    }
  }

  /**
   * Gives back a slot claimed for a change that did not happen; it also lapses by itself. Named
   * by the ids the claim was made with, so it works after an erase that came during the claim.
   */
  async #release(): Promise<void> {
    const owner = this.#owner;
    if (!owner) return;
    await tenantIndexStub(this.env, owner.tenantId)
      .releaseRun(owner.tenantId, owner.sessionId)
      .catch(() => {});
  }
}
