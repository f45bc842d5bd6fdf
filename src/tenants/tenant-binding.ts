/**
 * Which tenant this index belongs to. The object is addressed by a name built from the tenant
 * id but cannot read that name, so the first caller's tenant id is stored and any other id is
 * refused: a naming bug then fails loudly instead of mixing two tenants' data.
 */
import { isValidTenantId } from "../auth/principal";
import { describeError, log } from "../log";

const TENANT_ID_KEY = "tenant_id";
const CREATED_AT_KEY = "created_at";
const REGISTERED_KEY = "registered";

export type TenantCheck = { ok: true; firstUse: boolean } | { ok: false };

/** Pure: may `given` use an index bound to `bound` (undefined: not bound yet)? */
export function checkTenant(bound: string | undefined, given: string): TenantCheck {
  if (bound === undefined) return { ok: true, firstUse: true };
  return bound === given ? { ok: true, firstUse: false } : { ok: false };
}

/** Registers the tenant; `false`: the registry refuses it (the tenant was deleted). */
export type Register = (tenantId: string, createdAt: number) => Promise<boolean | void>;

/** The tenant was deleted: its index must not be bound (and so the tenant created) again. */
export class TenantGoneError extends Error {
  override name = "TenantGoneError";
}

/** Whether `error` is a TenantGoneError, thrown here or in an index called over RPC (which keeps an error's name, not its class). */
export function isTenantGone(error: unknown): boolean {
  return error instanceof Error && error.name === "TenantGoneError";
}

export class TenantBinding {
  #kv: SyncKvStorage;
  #register: Register;
  #tenantId: string | undefined;
  #registered = false;
  #registering: Promise<void> | null = null;

  constructor(kv: SyncKvStorage, register: Register) {
    this.#kv = kv;
    this.#register = register;
    this.#tenantId = kv.get<string>(TENANT_ID_KEY);
    this.#registered = kv.get<boolean>(REGISTERED_KEY) === true;
  }

  /** Binds on first use, refuses another tenant, and makes sure the registry knows the tenant. */
  async enter(tenantId: string, now: number): Promise<void> {
    if (tenantId === this.#tenantId && this.#registered) return;
    if (!isValidTenantId(tenantId)) throw new TypeError("tenantId is not a valid tenant id");
    const check = checkTenant(this.#tenantId, tenantId);
    if (!check.ok) throw new Error("this tenant index belongs to a different tenant");
    if (check.firstUse) {
      // The registry is asked before anything is written: a deleted tenant's index stays empty.
      // A registry that cannot be reached fails this first call rather than binding blind.
      if ((await this.#register(tenantId, now)) === false) throw new TenantGoneError("the tenant was deleted");
      if (this.#tenantId !== undefined) return this.enter(tenantId, now); // bound by a concurrent first call meanwhile
      this.#kv.put(TENANT_ID_KEY, tenantId);
      this.#kv.put(CREATED_AT_KEY, now);
      this.#kv.put(REGISTERED_KEY, true);
      this.#tenantId = tenantId;
      this.#registered = true;
      return;
    }
    if (!this.#registered) await this.#ensureRegistered(tenantId);
  }

  /**
   * Read-only check for lookups made before the caller is authenticated: refuses another
   * tenant, but neither binds nor registers, so unauthenticated traffic cannot create tenants.
   * Returns false when the index was never bound (it then holds nothing to find).
   */
  peek(tenantId: string): boolean {
    if (!isValidTenantId(tenantId)) throw new TypeError("tenantId is not a valid tenant id");
    if (this.#tenantId === undefined) return false;
    if (!checkTenant(this.#tenantId, tenantId).ok) throw new Error("this tenant index belongs to a different tenant");
    return true;
  }

  /** The tenant this index belongs to, once bound. */
  get tenantId(): string | undefined {
    return this.#tenantId;
  }

  /** Whether a tenant was ever entered here (and so whether the object holds anything). */
  get bound(): boolean {
    return this.#tenantId !== undefined;
  }

  get createdAt(): number {
    return this.#kv.get<number>(CREATED_AT_KEY) ?? 0;
  }

  /**
   * One registration at a time; a failure is logged and retried on the next call rather than
   * failing the request, since the registry only feeds the platform admin's tenant list.
   */
  async #ensureRegistered(tenantId: string): Promise<void> {
    this.#registering ??= this.#register(tenantId, this.createdAt)
      .then(() => {
        this.#kv.put(REGISTERED_KEY, true);
        this.#registered = true;
      })
      .catch((error: unknown) => {
        log("error", "tenant_registration_failed", { error: describeError(error) });
      })
      .finally(() => {
        this.#registering = null;
      });
    await this.#registering;
  }
}
