/**
 * A sharded tenant's callers admitted by the shard their rate bucket hashes to, in the order of
 * ../admission-flow.ts, so a tenant's requests are not all counted on one object. The shard keeps
 * in memory what the index would read (the tenant's state, keys' records, end users' cut-offs),
 * each for `ADMISSION_FRESH_MS` at most, and forgets it at once when the index tells it of a change
 * (tenant-index/admission-shards.ts). What is stale is asked for in one call; a request whose
 * shard holds it all makes none. It writes nothing: admission binds no storage.
 */
import type { AdmissionChange, AdmissionPlace, AdmissionState, AdmissionView, AdmissionViewInput } from "../admission-flow";
import type { ApiKeyRecord } from "../api-key-store";
import type { TenantIndexRpc } from "../rpc";
import { RatePools } from "./rate-pools";

/** How long a shard admits by what it last read of the tenant when nobody told it of a change. */
export const ADMISSION_FRESH_MS = 2_000;
/** Above this many records and cut-offs kept, they are all dropped (they are read again on use). */
const MAX_KEPT = 10_000;

interface Kept<V> {
  value: V;
  at: number;
}

type Lender = Pick<TenantIndexRpc, "admissionView" | "leaseRate">;

function fresh<V>(kept: Kept<V> | null | undefined, now: number): kept is Kept<V> {
  return kept !== null && kept !== undefined && now - kept.at < ADMISSION_FRESH_MS;
}

export class ShardAdmission {
  readonly pools: RatePools;
  #state: Kept<AdmissionState | null> | null = null;
  readonly #keys = new Map<string, Kept<ApiKeyRecord>>();
  readonly #cutOffs = new Map<string, Kept<number | null>>();
  readonly #loading = new Map<string, Promise<AdmissionView>>();
  /** Moves on every change told: a view asked for before it is used once, not kept. */
  #epoch = 0;

  constructor(
    readonly tenantId: string,
    shards: number,
    readonly index: () => Lender,
  ) {
    this.pools = new RatePools((asks, now) => this.index().leaseRate(tenantId, asks, now), shards);
  }

  /**
   * Where a request that needs `keyId`'s record and `endUser`'s cut-off is admitted; what is stale
   * is read first, in one call, and this request uses what that call brought even when it is not kept.
   */
  async place(need: { keyId?: string | undefined; endUser?: unknown }): Promise<AdmissionPlace> {
    const now = Date.now();
    const ask: AdmissionViewInput = {};
    if (need.keyId !== undefined && !fresh(this.#keys.get(need.keyId), now)) ask.keyId = need.keyId;
    if (typeof need.endUser === "string" && !fresh(this.#cutOffs.get(need.endUser), now)) ask.endUser = need.endUser;
    const loaded = ask.keyId !== undefined || ask.endUser !== undefined || !fresh(this.#state, now) ? await this.#load(ask) : {};
    return {
      enter: async () => {
        if (loaded.state !== undefined) return loaded.state;
        const kept = this.#state;
        return fresh(kept, Date.now()) ? kept.value : ((await this.#load({})).state ?? null);
      },
      findApiKey: async (keyId) => {
        if (ask.keyId === keyId) return loaded.record ?? null;
        const kept = this.#keys.get(keyId);
        return fresh(kept, Date.now()) ? kept.value : ((await this.#load({ keyId })).record ?? null);
      },
      revokedBefore: async (subject) => {
        if (ask.endUser === subject && loaded.revokedBefore !== undefined) return loaded.revokedBefore;
        const kept = this.#cutOffs.get(subject);
        return fresh(kept, Date.now()) ? kept.value : ((await this.#load({ endUser: subject })).revokedBefore ?? null);
      },
      prepare: (windows, at) => this.pools.ready(windows, at),
    };
  }

  /**
   * The key was used now: its kept record says so, so the gateway, which records a key's use at
   * most once a minute by the record's `last_used_at`, records this one and not every request after
   * it until the record is read again.
   */
  used(keyId: string, now: number): void {
    const kept = this.#keys.get(keyId);
    if (kept) kept.value = { ...kept.value, last_used_at: new Date(now).toISOString() };
  }

  /** The index said `change` happened: what it made stale is read again on next use. */
  forget(change: AdmissionChange): void {
    this.#epoch += 1;
    // A read already under way may have been answered before the change: no request joins it any more.
    this.#loading.clear();
    if (change.config === true) {
      this.#state = null;
      this.pools.refresh();
    }
    if (typeof change.keyId === "string") this.#keys.delete(change.keyId);
    if (typeof change.endUser === "string") this.#cutOffs.delete(change.endUser);
  }

  /** One call to the index for `ask` (the same ask in flight is shared); kept only if no change was told meanwhile. */
  #load(ask: AdmissionViewInput): Promise<AdmissionView> {
    const name = JSON.stringify([ask.keyId ?? null, ask.endUser ?? null]);
    const inFlight = this.#loading.get(name);
    if (inFlight) return inFlight;
    const epoch = this.#epoch;
    const loading = this.index()
      .admissionView(this.tenantId, ask)
      .then((view) => {
        if (epoch === this.#epoch) this.#keep(ask, view, Date.now());
        return view;
      })
      .finally(() => {
        if (this.#loading.get(name) === loading) this.#loading.delete(name);
      });
    this.#loading.set(name, loading);
    return loading;
  }

  #keep(ask: AdmissionViewInput, view: AdmissionView, at: number): void {
    if (this.#keys.size + this.#cutOffs.size > MAX_KEPT) {
      this.#keys.clear();
      this.#cutOffs.clear();
    }
    if (view.state !== undefined) this.#state = { value: view.state, at };
    // A key that names no record is not kept: one created a moment later must work at once.
    if (ask.keyId !== undefined && view.record) this.#keys.set(ask.keyId, { value: view.record, at });
    if (ask.endUser !== undefined && view.revokedBefore !== undefined) this.#cutOffs.set(ask.endUser, { value: view.revokedBefore, at });
  }
}
