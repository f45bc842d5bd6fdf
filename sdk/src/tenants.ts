/**
 * A platform admin's tenant deletion: asked for once (again is harmless: it answers the same
 * deletion), then followed to its end, and the tenant's storage counted to see nothing is left.
 */
import type { PlatformClient } from "./client.ts";
import { expectData } from "./errors.ts";
import type { AdminTenant, Jurisdiction, ShardLayout, TenantDeletion, TenantStorage } from "./types.ts";
import { sleep, type WaitOptions } from "./wait.ts";

const DEFAULT_TIMEOUT_MS = 10 * 60_000;
const DEFAULT_INTERVAL_MS = 1_000;

export class TenantDeletionTimeoutError extends Error {
  override name = "TenantDeletionTimeoutError";
  readonly tenantId: string;
  /** The deletion as last read. */
  readonly last: TenantDeletion | null;

  constructor(tenantId: string, last: TenantDeletion | null) {
    super(`tenant ${tenantId} is still ${last?.status ?? "not being deleted"}`);
    this.tenantId = tenantId;
    this.last = last;
  }
}

/** Suspends the tenant and starts erasing it (`DELETE /v1/admin/tenants/{tenant_id}`); the progress. */
export async function deleteTenant(client: PlatformClient, tenantId: string): Promise<TenantDeletion> {
  const answer = await expectData(client.DELETE("/v1/admin/tenants/{tenant_id}", { params: { path: { tenant_id: tenantId } } }));
  return answer.deletion;
}

/** The deletion once it is `deleted`, read from `GET /v1/admin/tenants/{tenant_id}` until then. */
export async function waitForTenantDeleted(client: PlatformClient, tenantId: string, options: WaitOptions = {}): Promise<TenantDeletion> {
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const interval = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  for (;;) {
    options.signal?.throwIfAborted();
    const tenant = await expectData(
      client.GET("/v1/admin/tenants/{tenant_id}", { params: { path: { tenant_id: tenantId } }, signal: options.signal }),
    );
    if (tenant.deletion?.status === "deleted") return tenant.deletion;
    if (Date.now() + interval > deadline) throw new TenantDeletionTimeoutError(tenantId, tenant.deletion);
    await sleep(interval, options.signal);
  }
}

/** What each of the tenant's objects stores (and the sessions named), to verify an erasure. */
export function tenantStorage(client: PlatformClient, tenantId: string, sessionIds: readonly string[] = []): Promise<TenantStorage> {
  const query = sessionIds.length > 0 ? { session_ids: sessionIds.join(",") } : {};
  return expectData(client.GET("/v1/admin/tenants/{tenant_id}/storage", { params: { path: { tenant_id: tenantId }, query } }));
}

/**
 * Pins every object of the tenant to a jurisdiction (`PUT /v1/admin/tenants/{tenant_id}`; null:
 * none), before the tenant holds data: after, the platform answers 409. The tenant as it stands.
 */
export function setTenantJurisdiction(client: PlatformClient, tenantId: string, jurisdiction: Jurisdiction): Promise<AdminTenant> {
  return expectData(client.PUT("/v1/admin/tenants/{tenant_id}", { params: { path: { tenant_id: tenantId } }, body: { jurisdiction } }));
}

/**
 * Spreads the sessions the tenant creates from now on over `shards` shards
 * (`PUT /v1/admin/tenants/{tenant_id}/shards`; 1: its index keeps them). The layout they are placed
 * by; a tenant with a daily budget is refused (a PlatformError with status 409).
 */
export function setTenantShards(client: PlatformClient, tenantId: string, shards: number): Promise<ShardLayout> {
  return expectData(client.PUT("/v1/admin/tenants/{tenant_id}/shards", { params: { path: { tenant_id: tenantId } }, body: { shards } }));
}
