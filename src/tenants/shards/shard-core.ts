/**
 * What a tenant shard holds beside its tables: the tenant and shard it is bound to, its lease of
 * run slots, whether the tenant is suspended as last heard, and its alarm. Its session paths
 * (shard-sessions.ts) reach the object through it.
 */
import { isValidTenantId } from "../../auth/principal";
import { log, describeError } from "../../log";
import { tenantIndexStub } from "../../objects";
import { AlarmClock } from "../../storage/alarm-clock";
import { migrate } from "../../storage/migrations";
import { grantedSessions, queueLength } from "../run-slots";
import { slotsInUse } from "../sessions-store";
import { isShardRef, shardKey, type ShardRef } from "../../shared/shard-layout";
import { ShardAdmission } from "./admission";
import { LEASE_BLOCK, LeaseBook } from "./leases";
import { ShardSpend } from "./spend";
import { TENANT_SHARD_MIGRATIONS } from "./migrations";

const BOUND_KEY = "bound";
const SUSPENDED_KEY = "suspended";
/** Requests one lease call sends at most (a pending one from before, a yield answered in between). */
const MAX_LEASE_ROUNDS = 3;
/** How long the shard trusts what it last heard of the tenant's suspension when no one told it since. */
export const SUSPENSION_FRESH_MS = 60_000;

export class ShardCore {
  readonly alarms: AlarmClock;
  readonly lease: LeaseBook;
  /** When this object last admitted a run (memory only: after a restart spare slots go back soon). */
  lastAdmitAt = 0;
  #bound: { tenantId: string; shard: ShardRef } | null;
  #migrated = false;
  #suspension: { suspended: boolean; heardAt: number } | null = null;
  #leasing: Promise<void> | null = null;
  #readingSuspension: Promise<boolean> | null = null;
  #admission: ShardAdmission | null = null;
  #spend: ShardSpend | null = null;

  constructor(
    readonly ctx: DurableObjectState,
    readonly env: Cloudflare.Env,
  ) {
    this.alarms = new AlarmClock(ctx.storage);
    this.lease = new LeaseBook(() => ctx.storage.kv);
    this.#bound = ctx.storage.kv.get<{ tenantId: string; shard: ShardRef }>(BOUND_KEY) ?? null;
    if (this.#bound) this.#migrate();
  }

  get sql(): SqlStorage {
    return this.ctx.storage.sql;
  }

  get kv(): SyncKvStorage {
    return this.ctx.storage.kv;
  }

  get bound(): { tenantId: string; shard: ShardRef } | null {
    return this.#bound;
  }

  transaction<R>(fn: () => R): R {
    return this.ctx.storage.transactionSync(fn);
  }

  /** Binds the shard on its first session call; any later call naming another tenant or shard throws. */
  enter(tenantId: string, shard: ShardRef): ShardCore {
    if (!isValidTenantId(tenantId) || !isShardRef(shard)) throw new TypeError("tenantId or shard is not valid");
    if (this.#bound === null) {
      this.#bound = { tenantId, shard: { generation: shard.generation, shards: shard.shards, k: shard.k } };
      this.kv.put(BOUND_KEY, this.#bound);
    } else if (this.#bound.tenantId !== tenantId || shardKey(this.#bound.shard) !== shardKey(shard)) {
      throw new Error("this tenant shard belongs to a different tenant or shard");
    }
    this.#migrate();
    return this;
  }

  /** For the index's reads and changes: null before any session came (an empty shard); another tenant throws. */
  read(tenantId: string): ShardCore | null {
    if (this.#bound === null) return null;
    if (this.#bound.tenantId !== tenantId) throw new Error("this tenant shard belongs to a different tenant");
    return this;
  }

  /** The admission of the callers hashed here (./admission.ts): memory only, so it binds nothing; another tenant or shard throws. */
  admission(tenantId: string, shard: ShardRef): ShardAdmission {
    if (!isValidTenantId(tenantId) || !isShardRef(shard)) throw new TypeError("tenantId or shard is not valid");
    const bound = this.#bound;
    if (bound !== null && (bound.tenantId !== tenantId || shardKey(bound.shard) !== shardKey(shard)))
      throw new Error("this tenant shard belongs to a different tenant or shard");
    if (this.#admission !== null && this.#admission.tenantId !== tenantId)
      throw new Error("this tenant shard belongs to a different tenant");
    this.#admission ??= new ShardAdmission(tenantId, shard.shards, () => tenantIndexStub(this.env, tenantId));
    return this.#admission;
  }

  /** The shard's part in the tenant's daily budgets (./spend.ts). */
  get spend(): ShardSpend {
    this.#spend ??= new ShardSpend(this);
    return this.#spend;
  }

  /** What the admission keeps, when any request was admitted here. */
  get admitting(): ShardAdmission | null {
    return this.#admission;
  }

  #migrate(): void {
    if (this.#migrated) return;
    migrate(this.ctx.storage, TENANT_SHARD_MIGRATIONS);
    this.#migrated = true;
  }

  /** After its storage was purged: bound to nothing, tables to be made again by a next session. */
  forget(): void {
    this.#bound = null;
    this.#migrated = false;
    this.#suspension = null;
    this.#admission = null;
    this.#spend?.retire();
    this.#spend = null;
    this.#readingSuspension = null;
  }

  get tenantId(): string {
    if (!this.#bound) throw new Error("the shard is not bound yet");
    return this.#bound.tenantId;
  }

  heardSuspended(suspended: boolean, now = Date.now()): void {
    this.#suspension = { suspended, heardAt: now };
    this.kv.put(SUSPENDED_KEY, suspended);
  }

  /** Whether the tenant is suspended: as told (by a push or a lease answer) within `SUSPENSION_FRESH_MS`, else asked. */
  async suspended(now = Date.now()): Promise<boolean> {
    const known = this.#suspension;
    if (known && now - known.heardAt < SUSPENSION_FRESH_MS) return known.suspended;
    // Sessions arriving together share one read.
    if (!this.#readingSuspension) {
      const reading = this.#readSuspension(now).finally(() => {
        if (this.#readingSuspension === reading) this.#readingSuspension = null;
      });
      this.#readingSuspension = reading;
    }
    return this.#readingSuspension;
  }

  async #readSuspension(now: number): Promise<boolean> {
    try {
      const config = await tenantIndexStub(this.env, this.tenantId).getConfig(this.tenantId);
      // A push or lease answer heard during the read is newer than it.
      if (!this.#bound) return config.suspended;
      if ((this.#suspension?.heardAt ?? -1) <= now) this.heardSuspended(config.suspended, now);
      return this.#suspension?.suspended ?? config.suspended;
    } catch (error) {
      if (!this.#bound) throw error;
      log("warn", "shard_suspension_unread", { tenant_id: this.tenantId, error: describeError(error) });
      return this.kv.get<boolean>(SUSPENDED_KEY) === true;
    }
  }

  /** Slots this shard's sessions hold (runs and reservations, a granted queued session's among them) or wait for: what its lease must cover. */
  demand(): number {
    return slotsInUse(this.sql, "") + queueLength(this.sql) - grantedSessions(this.sql).length;
  }

  /**
   * Asks the index for a lease of `want` slots in all (one request at a time; a request written
   * before a crash is sent again first). Resolves once the answer is kept; a failure is logged,
   * and the lease stays as it was.
   */
  async askLease(want: number, need = want): Promise<void> {
    while (this.#leasing) await this.#leasing;
    const shard = this.#bound!.shard;
    this.#leasing = (async () => {
      let request = this.lease.request(want);
      let rounds = 0;
      try {
        for (;;) {
          const answer = await tenantIndexStub(this.env, this.tenantId).leaseSlots(
            this.tenantId,
            shardKey(shard),
            request.seq,
            request.want,
            Math.min(need, request.want),
          );
          this.lease.answered(answer);
          if (answer.suspended !== undefined) this.heardSuspended(answer.suspended);
          // Answered as asked: done. A request from before a crash, or one the index answered with a
          // yield recorded since (a higher number): the one wanted now goes next, a few times at most.
          if ((answer.seq === request.seq && request.want === want) || ++rounds >= MAX_LEASE_ROUNDS) break;
          request = this.lease.request(want);
        }
      } catch (error) {
        log("warn", "shard_lease_failed", { tenant_id: this.tenantId, shard: shardKey(shard), error: describeError(error) });
      }
    })().finally(() => (this.#leasing = null));
    await this.#leasing;
  }

  /** The lease request in flight, if any: an admission waits for it before asking for more itself. */
  get leasing(): Promise<void> | null {
    return this.#leasing;
  }

  /** A lease big enough for one more run and as many again spare (at least `LEASE_BLOCK`): a burst asks the index a few times, not once per run. */
  async growLease(): Promise<void> {
    const need = this.demand() + 1;
    await this.askLease(need + Math.max(LEASE_BLOCK, need), need);
  }
}
