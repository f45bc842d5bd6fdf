/**
 * The session's run slot at its tenant index, claimed only one way (`goOn`): claim, check again
 * after the await, give back what is not used, and go on by the claim's outcome; the claim and
 * release alone are private.
 */
import { sessionHome } from "../../../tenants/shards/home";
import type { ShardRef } from "../../../shared/shard-layout";
import { log } from "../../../log";
import type { SessionStore } from "../store/store";
import { isLive, SessionGone } from "./gone";

/** What asking for a run slot gave: one, none free (queue), or a suspended tenant (stop). */
export type SlotClaim = "ok" | "busy" | "suspended";

/** A change that lets a run go on, as `goOn` makes it. */
export interface GoOn<F> {
  /** Whether the change needs a run slot the session does not hold (else it goes on `running`). */
  needed: boolean;
  /** Asked after the claim's await: null while the change still stands, else the refusal answered. */
  stands: () => F | null;
  /** The change, made in the status the run goes on in: `running` with a slot, `queued` without one. */
  go: (runnable: "running" | "queued") => void;
  /**
   * A suspended tenant's run is cancelled: `after` the change (kept: a decision, a message), or
   * `instead` of it (a resume that would only have moved the run before its cancel).
   */
  suspended?: "after" | "instead";
}

export class RunSlots {
  /** Whose run slot the last claim asked for (this object is always one session). */
  #owner: { tenantId: string; sessionId: string; shard: ShardRef | null } | null = null;

  constructor(
    private readonly store: SessionStore,
    private readonly env: Cloudflare.Env,
    private readonly cancelRun: () => void,
  ) {}

  /**
   * The claim's three outcomes in one place. Claims a slot when `needed`, then, after the await:
   * erased meanwhile, raises `SessionGone`; refused by `stands`, answers the refusal; else makes
   * the change (`go`), and cancels the run of a suspended tenant. A slot claimed for a change
   * that does not happen is given back; the answer is taken before the release's await, after
   * which the session may be gone. Null: the change was made.
   */
  async goOn<F>(change: GoOn<F>): Promise<F | null> {
    const slot = change.needed ? await this.#claim() : "ok";
    const live = isLive(this.store);
    const refusal = live ? change.stands() : null;
    if (!live || refusal !== null) {
      if (change.needed && slot === "ok") await this.#release();
      if (!live) throw new SessionGone();
      return refusal;
    }
    if (slot !== "suspended" || change.suspended !== "instead") change.go(slot === "ok" ? "running" : "queued");
    if (slot === "suspended") this.cancelRun();
    return null;
  }

  /**
   * Asks the tenant index for a run slot, for a session that held none (it waited, was paused or
   * queued). An unreachable index counts as busy: the session queues and asks again later.
   */
  async #claim(): Promise<SlotClaim> {
    const session = this.store.requireSession();
    this.#owner = { tenantId: session.tenant_id, sessionId: session.id, shard: session.shard ?? null };
    try {
      const slot = await sessionHome(this.env, session.tenant_id, session.shard).acquireRun(
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
    await sessionHome(this.env, owner.tenantId, owner.shard)
      .releaseRun(owner.sessionId)
      .catch(() => {});
  }
}
